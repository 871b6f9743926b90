import { f } from "./a";

export const n: number = f();
export const old: string = 1;
