/**
 * The UI's entry: the session (login or not), the app context, and the routed page in the layout.
 */
import { render } from "preact";
import { useMemo, useState, useEffect } from "preact/hooks";
import { Api } from "./api.js";
import { AppContext, type AppState } from "./app-context.js";
import { Layout } from "./components/layout.js";
import { html } from "./html.js";
import { LoginPage } from "./pages/login.js";
import { NotFoundPage } from "./pages/not-found.js";
import { matchRoute, useHashPath } from "./router.js";
import { ROUTES } from "./routes.js";
import { clearSession, loadPref, loadSession, savePref, saveSession, type Session } from "./session.js";

function App() {
  const [session, setSession] = useState<Session | null>(loadSession());
  const [notice, setNotice] = useState("");
  const [vhost, setVhostState] = useState<string>(loadPref("vhost", ""));
  const [refreshMs, setRefreshState] = useState<number>(loadPref("refreshMs", 5000));
  const path = useHashPath();
  const charts = useMemo(() => new Map<string, Array<Array<number | null>>>(), [session]);

  const logout = (why = ""): void => {
    clearSession();
    setNotice(why);
    setSession(null);
  };
  const state = useMemo<AppState | null>(() => {
    if (!session) return null;
    return {
      api: new Api(session.authorization, () => logout("Your login is no longer accepted (password changed, user deleted or token expired). Please log in again.")),
      user: session.user,
      tags: session.tags,
      vhost,
      setVhost: (v: string) => {
        savePref("vhost", v);
        setVhostState(v);
      },
      refreshMs,
      logout: () => logout(),
      charts,
    };
  }, [session, vhost, refreshMs]);

  const match = matchRoute(ROUTES, path);
  useEffect(() => {
    document.title = `${match ? match.route.title(match.params) : "Not found"} · Coney`;
    // A new page: keyboard and screen-reader users start at its content, as after a page load.
    document.getElementById("main")?.focus({ preventScroll: true });
  }, [path, session]);

  if (!state) {
    return html`<${LoginPage} notice=${notice} onLogin=${(s: Session) => {
      saveSession(s);
      setNotice("");
      setSession(s);
    }} />`;
  }
  const Page = match ? match.route.page : NotFoundPage;
  return html`<${AppContext.Provider} value=${state}>
    <${Layout} section=${match?.route.section ?? ""} onRefresh=${(ms: number) => {
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
