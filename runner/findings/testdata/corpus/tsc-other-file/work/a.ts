export function f(): string {
  return "1";
}
