function f() {
  const tmp = 1;
}
module.exports = { f };
