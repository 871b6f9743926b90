const { add } = require('./lib');
test('add', () => { expect(add(1, 2)).toBe(3); });
