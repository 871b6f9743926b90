// Helpers for the app.
function twice(x) {
  return 2 * x;
}

function old(a) {
  var unused = 1;
  console.log(a == 1);
  console.log("old");
}
module.exports = { old, twice };
