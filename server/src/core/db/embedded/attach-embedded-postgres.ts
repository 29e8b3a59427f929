import { mkdir } from "node:fs/promises";
import { join, resolve } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import type { Logger } from "pino";
import postgres from "postgres";
import { randomChars } from "../../ids/random-chars.ts";
import { dropLease, takeLease } from "./client-leases.ts";
import { type EmbeddedSettings, readEmbeddedSettings, writeEmbeddedSettings } from "./embedded-settings.ts";
import { freePort, isPortFree } from "./free-port.ts";
import { initCluster } from "./init-cluster.ts";
import { placeForPostgresAccount } from "./place-for-postgres-account.ts";
import { type PostgresBinaries, postgresBinaries } from "./postgres-binaries.ts";
import { type OsUser, postgresOsUser } from "./postgres-os-user.ts";
import { type Postmaster, readPostmaster } from "./read-postmaster.ts";
import { startPostmaster } from "./start-postmaster.ts";
import { stopPostmaster } from "./stop-postmaster.ts";
import { withDataDirLock } from "./with-data-dir-lock.ts";

/** This process's use of a data directory's embedded PostgreSQL. */
export interface EmbeddedPostgres {
  /** Connection URL of the service database (it carries the password: never log it). */
  url: string;
  /** Whether this process started the server (false: it joined one already running). */
  started: boolean;
  /** Lets go of the server; the last process to let go stops it. Close the pool first. */
  release(): Promise<void>;
}

/**
 * The embedded PostgreSQL of a data directory, shared by every process that names the same
 * directory. Layout: `postgres/` the cluster, `postgres.log` its log, `embedded-postgres.json`
 * the port, user and password, `clients/` the leases, `embedded-postgres.lock` the lock. Run as
 * root with a data directory the postgres account cannot reach, the cluster and its log move to
 * a folder it can (placeForPostgresAccount).
 *
 * Under the data directory lock, one process at a time: initialises the cluster on first use,
 * joins the server when one is already running there (the pid in `postmaster.pid` is alive), or
 * starts one on the remembered port (a free port when that one is taken), then takes a lease.
 * Releasing drops the lease and stops the server when no live process holds one any more, so
 * `svc-server user add` run beside `svc-server serve` leaves the server running, and the server
 * is stopped by whichever of them finishes last.
 */
export async function attachEmbeddedPostgres(options: {
  dataDir: string;
  log: Logger;
}): Promise<EmbeddedPostgres> {
  const dataDir = resolve(options.dataDir);
  const { log } = options;
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  const owner = await postgresOsUser();
  const shipped = await postgresBinaries();
  // Run as root, PostgreSQL runs as the postgres account, which may not reach a checkout in /root.
  const { binaries, clusterHome } = owner
    ? await placeForPostgresAccount(owner, dataDir, shipped)
    : { binaries: shipped, clusterHome: dataDir };
  const cluster = {
    binaries,
    owner,
    clusterDir: join(clusterHome, "postgres"),
    logFile: join(clusterHome, "postgres.log"),
  };

  return withDataDirLock(dataDir, async () => {
    let settings = await readEmbeddedSettings(dataDir);
    const running = await settledPostmaster(cluster.clusterDir);
    let started = false;
    if (!settings) {
      // First use, or an initialisation that died half-way: start over.
      if (running) await stopPostmaster(cluster);
      log.info({ dataDir }, "initialising the embedded PostgreSQL");
      settings = {
        port: 0,
        user: "postgres",
        password: randomChars("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz", 32),
        database: "svc",
      };
      await initCluster({ ...cluster, user: settings.user, password: settings.password });
      settings.port = await startOnFreePort(cluster, 0);
      started = true;
      await createServiceDatabase(settings);
      await writeEmbeddedSettings(dataDir, settings);
    } else if (!running) {
      const port = await startOnFreePort(cluster, settings.port);
      started = true;
      if (port !== settings.port) {
        settings = { ...settings, port };
        await writeEmbeddedSettings(dataDir, settings);
      }
    } else if (running.port !== settings.port) {
      settings = { ...settings, port: running.port };
    }
    log.info(
      { dataDir, port: settings.port, postmasterPid: (await readPostmaster(cluster.clusterDir))?.pid },
      started ? "started the embedded PostgreSQL" : "joined the embedded PostgreSQL already running",
    );
    const lease = await takeLease(dataDir);
    let released: Promise<void> | undefined;
    return {
      url: `postgres://${settings.user}:${settings.password}@127.0.0.1:${settings.port}/${settings.database}`,
      started,
      release: () => {
        released ??= withDataDirLock(dataDir, async () => {
          if ((await dropLease(dataDir, lease)) > 0) return;
          await stopPostmaster(cluster);
          log.info({ dataDir }, "stopped the embedded PostgreSQL");
        });
        return released;
      },
    };
  });
}

interface Cluster {
  binaries: PostgresBinaries;
  owner: OsUser | null;
  clusterDir: string;
  logFile: string;
}

/** Starts the server on `preferred` when it is free, else on a free port; returns the port used. */
async function startOnFreePort(cluster: Cluster, preferred: number): Promise<number> {
  for (let attempt = 1; ; attempt += 1) {
    const port =
      attempt === 1 && preferred > 0 && (await isPortFree(preferred)) ? preferred : await freePort();
    try {
      await startPostmaster({ ...cluster, port });
      return port;
    } catch (error) {
      // Another program may take a free port before PostgreSQL binds it: try another one.
      if (attempt === 3 || (await isPortFree(port))) throw error;
    }
  }
}

/** The running server once it is neither starting nor stopping, or null when none runs. */
async function settledPostmaster(clusterDir: string): Promise<Postmaster | null> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const postmaster = await readPostmaster(clusterDir);
    if (!postmaster || postmaster.status === "ready") return postmaster;
    if (Date.now() > deadline) {
      throw new Error(`the PostgreSQL in ${clusterDir} stayed "${postmaster.status}" for 60 s`);
    }
    await sleep(50);
  }
}

async function createServiceDatabase(settings: EmbeddedSettings): Promise<void> {
  const admin = postgres({
    host: "127.0.0.1",
    port: settings.port,
    user: settings.user,
    password: settings.password,
    database: "postgres",
    max: 1,
    onnotice: () => {},
  });
  try {
    await admin.unsafe(`create database ${settings.database}`);
  } finally {
    await admin.end();
  }
}
