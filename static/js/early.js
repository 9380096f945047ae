// Loaded before the page paints: lets CSS hide the no-JS fallbacks at once.
document.documentElement.classList.add("js");
