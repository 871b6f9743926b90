function old(a) {
  var unused = 1;
  console.log(a == 1);
  console.log("old");
}
module.exports = { old };
