#!/usr/bin/env node
import("../src/index.ts").then((m) => console.log(m.x));
