/** The service's notion of now, passed in so tests can fix it. */
export type Clock = () => Date;

/** The wall clock. */
export const systemClock: Clock = () => new Date();
