// /api/docs: Swagger UI (static/api-docs/, from the npm registry) over the app's own OpenAPI document.
// A file of its own because the Content-Security-Policy allows no inline script.
"use strict";
(function () {
  var root = document.getElementById("api-reference");
  if (!root || typeof window.SwaggerUIBundle !== "function") { return; }
  window.SwaggerUIBundle({
    url: root.getAttribute("data-spec"),
    domNode: root,
    deepLinking: true,
    // Reading only: "Try it out" would send requests from this page with whatever token is typed in.
    supportedSubmitMethods: [],
    validatorUrl: null
  });
})();
