export interface Shape {
  kind: "circle" | "square";
  size: { width: number; height: number };
}
