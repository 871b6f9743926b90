const { add } = require('./lib');

test('adds zero', () => {
  expect(add(0, 0)).toBe(0);
});

test('old', () => {
  expect(add(2, 2)).toBe(5);
});
