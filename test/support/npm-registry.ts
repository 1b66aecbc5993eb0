// npm packages for tests: packed with the real npm from a folder, and served by the smallest
// npm registry (one package's document and its tarballs) over loopback HTTP, for commands that
// install from npm (`reson plugin add @scope/name@1.2.3`) with nothing fetched from the network.
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";

export interface Packed {
  file: string;
  integrity: string;
  shasum: string;
}

/** Packs `folder` with the real npm into `into`; nothing is fetched. */
export function npmPack(folder: string, into: string): Packed {
  const out = execFileSync("npm", ["pack", "--json", "--pack-destination", into], {
    cwd: folder,
    encoding: "utf8",
    env: { ...process.env, npm_config_offline: "true", npm_config_update_notifier: "false" },
  });
  const [info] = JSON.parse(out) as { filename: string; integrity: string; shasum: string }[];
  if (!info) throw new Error(`npm pack printed nothing for ${folder}`);
  return { file: join(into, info.filename), integrity: info.integrity, shasum: info.shasum };
}

/** The smallest npm registry: one package's document and its tarballs, over loopback HTTP. */
export async function npmRegistry(
  name: string,
  versions: Record<string, Packed>,
): Promise<{ url: string; server: Server }> {
  const server = createServer((req, res) => {
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const path = decodeURIComponent(req.url ?? "");
    if (path === `/${name}`) {
      const doc = {
        name,
        "dist-tags": { latest: Object.keys(versions).at(-1) },
        versions: Object.fromEntries(
          Object.entries(versions).map(([version, packed]) => [
            version,
            {
              name,
              version,
              dist: {
                tarball: `${base}/-/${version}.tgz`,
                integrity: packed.integrity,
                shasum: packed.shasum,
              },
            },
          ]),
        ),
      };
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(doc));
      return;
    }
    const tarball = /^\/-\/(.+)\.tgz$/.exec(path)?.[1];
    const packed = tarball ? versions[tarball] : undefined;
    if (packed) {
      res.writeHead(200, { "content-type": "application/octet-stream" }).end(readFileSync(packed.file));
      return;
    }
    res.writeHead(404, { "content-type": "application/json" }).end('{"error":"not found"}');
  });
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`, server };
}
