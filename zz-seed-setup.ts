import fc from "fast-check";
fc.configureGlobal({ seed: Number(process.env.FC_SEED), numRuns: 300 });
