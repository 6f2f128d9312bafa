// Every form on this site is sent by its page's script, which stops the browser's own
// submission. Loaded before the page's body (a classic script in <head>), this stops any
// submission that script has not taken (it has not loaded yet, on a slow network, or it
// failed) from going as the browser's own GET to the page, with the form's fields (a password
// too) in the address, and says why nothing happened in the form's alert line.
window.addEventListener("submit", (event) => {
  if (event.defaultPrevented) return; // the page's script has it
  event.preventDefault();
  const alert = event.target.querySelector('[role="alert"]');
  if (alert) {
    alert.hidden = false;
    alert.textContent = "This page is still loading: try again in a moment, or reload it.";
  }
});
