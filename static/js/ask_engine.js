// One question to the referee, the way the trick referee's pages ask it (trick_referee.js, trick_dispute.js):
// the JSON API first (the server's word, in the page's language); when there is no answer from it (no network,
// a 5xx, a body that is not JSON) the same engine in this browser (static/js/pyengine.js), if the page has it.
// Resolves {answer: {status, body}, local}, where local says the answer is the phone's; rejects when neither
// could answer, so that the page says it is offline. Kept in one place so the two pages cannot drift apart.
(function () {
  "use strict";
  window.RefereeAsk = function (api, name, data) {
    return fetch(api, { method: "POST", body: JSON.stringify(data), credentials: "same-origin",
                        headers: { "Content-Type": "application/json", "Accept-Language": document.documentElement.lang } })
      .then(function (resp) {
        if (resp.status >= 500) throw new Error(resp.status);
        return resp.json().then(function (body) { return { answer: { status: resp.status, body: body }, local: false }; });
      })
      .catch(function () {
        if (!window.RefereeEngine) throw new Error("no engine in this page");
        return window.RefereeEngine.ask(name, data).then(function (answer) { return { answer: answer, local: true }; });
      });
  };
})();
