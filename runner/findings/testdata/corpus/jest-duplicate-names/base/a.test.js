const { add, sub } = require('./lib');
test('math works', () => { expect(add(2, 2)).toBe(5); });
