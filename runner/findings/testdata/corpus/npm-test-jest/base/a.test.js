const { add } = require('./lib');

test('old', () => {
  expect(add(2, 2)).toBe(5);
});
