/**
 * Login: username and password (HTTP Basic) or, when /api/auth says the broker takes OAuth 2.0
 * logins, a pasted access token (Bearer). The credentials are checked with /api/whoami before
 * they are kept (with the idle timeout it names); a user without a management tag is refused
 * here as the API would refuse each request.
 */
import { useEffect, useState } from "preact/hooks";
import { ApiError, oauthEnabled, whoami } from "../api.js";
import { describeError } from "../components/error-box.js";
import { html } from "../html.js";
import { basicAuthorization, type Session } from "../session.js";

const UI_TAGS = ["management", "policymaker", "monitoring", "administrator"];

function noTagText(name: string | null): string {
  return `${name === null ? "This token's user" : `User "${name}"`} has no management tag (management, policymaker, monitoring or administrator) and cannot use this UI.`;
}

export function LoginPage({ onLogin, notice }: { onLogin: (s: Session) => void; notice: string }) {
  const [mode, setMode] = useState<"basic" | "token">("basic");
  const [user, setUser] = useState("");
  const [password, setPassword] = useState("");
  const [token, setToken] = useState("");
  const [error, setError] = useState("");
  const [busy, setBusy] = useState(false);
  const [oauth, setOauth] = useState(false);
  useEffect(() => {
    oauthEnabled().then(setOauth, () => setOauth(false));
  }, []);

  const submit = async (e: Event): Promise<void> => {
    e.preventDefault();
    setBusy(true);
    setError("");
    const authorization = mode === "basic" ? basicAuthorization(user, password) : `Bearer ${token.trim().replace(/^Bearer\s+/i, "")}`;
    try {
      const me = await whoami(authorization);
      if (!me.tags.some((t) => UI_TAGS.includes(t))) {
        setError(noTagText(me.name));
        return;
      }
      onLogin({ authorization, user: me.name, tags: me.tags, ...(me.timeoutMinutes !== undefined ? { timeoutMinutes: me.timeoutMinutes } : {}) });
    } catch (err) {
      const d = describeError(err);
      // The API refuses a tag-less user's whoami itself ("Not management user", as RabbitMQ's):
      // the password was right, so say what is missing rather than a generic refusal.
      if (err instanceof ApiError && /not management user/i.test(err.reason)) setError(noTagText(mode === "basic" ? user : null));
      else setError(err instanceof ApiError && err.status === 401 ? "Login failed: wrong username, password or token." : `${d.title}: ${d.detail}`);
    } finally {
      setBusy(false);
    }
  };

  return html`<main class="login" id="main">
    <form class="login-box" onSubmit=${submit} aria-labelledby="login-title">
      <h1 id="login-title"><img src="favicon.svg" alt="" width="28" height="28" /> Coney management</h1>
      ${oauth
        ? html`<div class="tabs" role="tablist">
            <button type="button" role="tab" aria-selected=${mode === "basic"} onClick=${() => setMode("basic")}>Username</button>
            <button type="button" role="tab" aria-selected=${mode === "token"} onClick=${() => setMode("token")}>OAuth 2.0 token</button>
          </div>`
        : null}
      ${notice ? html`<div class="msg msg-warn" role="status">${notice}</div>` : null}
      ${mode === "basic"
        ? html`<label>Username <input name="username" autocomplete="username" required value=${user} onInput=${(e: Event) => setUser((e.target as HTMLInputElement).value)} autofocus /></label>
            <label>Password <input name="password" type="password" autocomplete="current-password" value=${password} onInput=${(e: Event) => setPassword((e.target as HTMLInputElement).value)} /></label>`
        : html`<label>Access token <textarea name="token" rows="5" required value=${token} onInput=${(e: Event) => setToken((e.target as HTMLTextAreaElement).value)} placeholder="eyJhbGciOi…"></textarea></label>`}
      ${error ? html`<div class="msg msg-error" role="alert">${error}</div>` : null}
      <button type="submit" class="primary" disabled=${busy}>${busy ? "Logging in…" : "Log in"}</button>
      <p class="muted small">Credentials stay in this tab's session storage and go only in the Authorization header of API requests.</p>
    </form>
  </main>`;
}
