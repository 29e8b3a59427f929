export const hello: string = "schemas";
