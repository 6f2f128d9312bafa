// Every form on this site is sent by its page's script, never by the browser itself. Loaded
// before the page's body (a classic script in <head>), this stops a form submitted before its
// page's script has loaded (a slow network, or a script that failed) from going as the
// browser's own GET to the page, with its fields (a password too) in the address. The pages'
// own handlers still hear every submission.
document.addEventListener("submit", (event) => event.preventDefault(), true);
