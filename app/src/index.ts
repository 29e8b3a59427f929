import { hello } from "@svc/schemas";
export const x: string = hello;
