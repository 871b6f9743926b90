import { Shape } from "./shape";

export const s: Shape = { kind: "circle", size: { width: 1, height: "2" } };
export const t: Shape = { kind: "triangle", size: { width: 1, height: 2 } };
