// Helpers for the a module.
function f() {
  const tmp = 1;
}
module.exports = { f };
