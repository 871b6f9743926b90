describe('A', () => { test('works', () => { expect(2).toBe(1); }); });
describe('B', () => { test('works', () => { expect(1).toBe(1); }); });
test.each([1, 2])('each %i', (n) => { expect(n).not.toBe(2); });
