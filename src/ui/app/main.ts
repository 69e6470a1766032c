/**
 * The UI's entry: the session (login or not, and its idle timeout), the app context with what the
 * user may do, and the routed page in the layout.
 */
import { render } from "preact";
import { useMemo, useState, useEffect, useLayoutEffect } from "preact/hooks";
import type { Access } from "./access.js";
import { Api } from "./api.js";
import { AppContext, type AppState } from "./app-context.js";
import { Layout } from "./components/layout.js";
import { html } from "./html.js";
import { clearActivity, DEFAULT_TIMEOUT_MINUTES, idleExpired, idleNotice, touchActivity, useIdleTimeout } from "./idle.js";
import { LoginPage } from "./pages/login.js";
import { NotFoundPage } from "./pages/not-found.js";
import { matchRoute, useHashPath } from "./router.js";
import { ROUTES } from "./routes.js";
import { clearSession, loadPref, loadSession, savePref, saveSession, type Session } from "./session.js";

const timeoutOf = (s: Session | null): number => s?.timeoutMinutes ?? DEFAULT_TIMEOUT_MINUTES;

/** The stored session, unless it has been idle past its timeout (then the login page says so). */
function restore(): { session: Session | null; notice: string } {
  const s = loadSession();
  if (s && idleExpired(timeoutOf(s))) {
    clearSession();
    clearActivity();
    return { session: null, notice: idleNotice(timeoutOf(s)) };
  }
  return { session: s, notice: "" };
}

function App() {
  const [initial] = useState(restore);
  const [session, setSession] = useState<Session | null>(initial.session);
  const [notice, setNotice] = useState(initial.notice);
  const [vhost, setVhostState] = useState<string>(loadPref("vhost", ""));
  const [refreshMs, setRefreshState] = useState<number>(loadPref("refreshMs", 5000));
  const [access, setAccess] = useState<Access | null>(null);
  const path = useHashPath();

  const logout = (why = ""): void => {
    clearSession();
    clearActivity();
    setNotice(why);
    setAccess(null);
    setSession(null);
  };
  useIdleTimeout(session !== null, timeoutOf(session), () => logout(idleNotice(timeoutOf(session))));
  const api = useMemo(
    () => (session ? new Api(session.authorization, () => logout("Your login is no longer accepted (password changed, user deleted or token expired). Please log in again.")) : null),
    [session],
  );
  // What the user may do, asked again on every page change: permissions granted or revoked
  // meanwhile show on the next page.
  useEffect(() => {
    if (!api) return;
    let current = true;
    api.get<Access>("/coney/my-access").then(
      (a) => current && setAccess(a),
      () => current && setAccess({ user: session?.user ?? "", vhosts: [], topic_permissions: [] }),
    );
    return () => {
      current = false;
    };
  }, [api, path]);
  const state = useMemo<AppState | null>(() => {
    if (!session || !api) return null;
    return {
      api,
      user: session.user,
      tags: session.tags,
      vhost,
      setVhost: (v: string) => {
        savePref("vhost", v);
        setVhostState(v);
      },
      refreshMs,
      logout: () => logout(),
      access,
    };
  }, [session, api, vhost, refreshMs, access]);

  const match = matchRoute(ROUTES, path);
  const title = match ? match.route.title(match.params) : "Not found";
  // A layout effect: it runs in the same task as the render that shows the new page, so a Tab
  // pressed as soon as the page is there already starts from the top (a plain effect waits for
  // the next frame, and a quick Tab went on from the old page's focus).
  useLayoutEffect(() => {
    document.title = `${title} · Coney`;
    // A new page starts where a page load starts: the next Tab reaches the skip link, then the
    // header and the main navigation (focusing the content instead left the navigation reachable
    // only backwards). The live region tells screen-reader users which page this is.
    document.getElementById("top")?.focus();
  }, [path, session]);

  if (!state) {
    return html`<${LoginPage} notice=${notice} onLogin=${(s: Session) => {
      saveSession(s);
      touchActivity();
      setNotice("");
      setSession(s);
    }} />`;
  }
  const Page = match ? match.route.page : NotFoundPage;
  return html`<${AppContext.Provider} value=${state}>
    <${Layout} section=${match?.route.section ?? ""} title=${title} onRefresh=${(ms: number) => {
      savePref("refreshMs", ms);
      setRefreshState(ms);
    }}>
      <${Page} key=${path} params=${match?.params ?? {}} />
    <//>
  <//>`;
}

const root = document.getElementById("app");
if (root) {
  root.textContent = "";
  render(html`<${App} />`, root);
}
