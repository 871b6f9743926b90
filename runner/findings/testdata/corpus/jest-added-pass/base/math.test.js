const { add } = require("./math");

test("adds", () => {
  expect(add(1, 2)).toBe(3);
});

test("old broken rounding", () => {
  expect(add(0.1, 0.2)).toBe(0.3);
});
