const { add, sub } = require('./lib');
test('math works', () => { expect(add(2, 2)).toBe(5); });
test('math works', () => { expect(sub(3, 1)).toBe(2); });
