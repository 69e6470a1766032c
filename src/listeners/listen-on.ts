/**
 * Binding a listener's server (TCP, TLS, HTTP, HTTPS): wait for listen() to succeed or fail, so a
 * side listener that cannot bind rejects its open() (side-listeners.ts retries it) and one that can
 * reports the port it got.
 */
import type { AddressInfo, Server } from "node:net";

/**
 * Binds `server` to `port` (0: an ephemeral one) on `bind` ("": every interface) and resolves with
 * the bound port; rejects with the bind error (EADDRINUSE, EACCES, …). Either way no listener of
 * its own stays on the server: the caller adds the one that logs later errors.
 */
export function listenOn(server: Server, port: number, bind: string): Promise<number> {
  return new Promise<number>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, bind === "" ? undefined : bind, () => {
      server.off("error", reject);
      resolve((server.address() as AddressInfo).port);
    });
  });
}
