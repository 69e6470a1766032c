/** Steps the UI tests share: log in, go to a page, wait for text, read text. */
import type { Page } from "puppeteer-core";

const TIMEOUT = 10_000;
const TYPE_ATTEMPTS = 3;

export async function login(page: Page, baseUrl: string, user: string, password: string): Promise<void> {
  await page.goto(`${baseUrl}/`, { waitUntil: "domcontentloaded" });
  await page.waitForSelector("input[name=username]", { timeout: TIMEOUT });
  await page.type("input[name=username]", user);
  await page.type("input[name=password]", password);
  await page.click("button[type=submit]");
}

/** Navigates by hash (the app's router) and waits for the page's h1 to contain `heading`. */
export async function go(page: Page, hash: string, heading: string): Promise<void> {
  await page.evaluate(`location.hash = ${JSON.stringify(hash)}`);
  await waitText(page, "h1", heading);
}

/** Waits until some element matching `selector` contains `text`. */
export async function waitText(page: Page, selector: string, text: string, timeout = TIMEOUT): Promise<void> {
  try {
    await page.waitForFunction(
      `[...document.querySelectorAll(${JSON.stringify(selector)})].some((e) => e.textContent.includes(${JSON.stringify(text)}))`,
      { timeout, polling: 50 },
    );
  } catch (err) {
    // Say what the page showed instead, so a failure in CI explains itself: the element, any
    // alert or notice, and form fields the browser holds invalid (a submit it refused to send).
    const seen = await textOf(page, `${selector}, [role=alert], [role=status]`).catch(() => "(page gone)");
    const invalid = (await page
      .evaluate(`[...document.querySelectorAll("form")].flatMap((f) => [...f.elements].filter((e) => e.willValidate && !e.checkValidity()).map((e) => (f.getAttribute("aria-label") ?? "form") + " " + (e.name || e.id) + ": " + e.validationMessage)).join("; ")`)
      .catch(() => "")) as string;
    const hash = (await page.evaluate("location.hash").catch(() => "")) as string;
    throw new Error(`waited ${timeout} ms for ${selector} to contain ${JSON.stringify(text)} at ${hash}; it showed: ${JSON.stringify(seen.slice(0, 500))}${invalid ? `; invalid fields: ${invalid}` : ""}`, { cause: err });
  }
}

export async function textOf(page: Page, selector: string): Promise<string> {
  return (await page.evaluate(`[...document.querySelectorAll(${JSON.stringify(selector)})].map((e) => e.textContent).join("\\n")`)) as string;
}

/**
 * Clicks the first button (or summary) whose text contains `label`, once there is one: actions
 * appear when the broker has said the user may take them (the page asks after it renders).
 */
export async function clickText(page: Page, selector: string, label: string): Promise<void> {
  await waitText(page, selector, label).catch(() => undefined);
  // A submit button is clicked once its form is complete, as a user would wait: fields filled
  // from a request (the vhost list) may arrive after the test has typed the rest.
  await page
    .waitForFunction(
      `(() => {
        const el = [...document.querySelectorAll(${JSON.stringify(selector)})].find((e) => e.textContent.includes(${JSON.stringify(label)}));
        return !el || el.type !== "submit" || !el.form || el.form.checkValidity();
      })()`,
      { timeout: TIMEOUT, polling: 50 },
    )
    .catch(() => undefined);
  const ok = await page.evaluate(`(() => {
    const el = [...document.querySelectorAll(${JSON.stringify(selector)})].find((e) => e.textContent.includes(${JSON.stringify(label)}));
    if (!el) return false;
    el.click();
    return true;
  })()`);
  if (!ok) throw new Error(`no ${selector} with text ${label}`);
}

/**
 * Opens the collapsible section titled `title`, once it is there: some sections render only after
 * the page has asked the broker what this user may do (the queue form waits for /coney/my-access),
 * and opening before they exist would leave them closed when they come.
 */
export async function openSection(page: Page, title: string): Promise<void> {
  try {
    await page.waitForFunction(
      `(() => {
        const d = [...document.querySelectorAll("details.section")].find((e) => e.querySelector("summary").textContent.includes(${JSON.stringify(title)}));
        if (d) d.open = true;
        return !!d;
      })()`,
      { timeout: TIMEOUT, polling: 50 },
    );
  } catch (err) {
    const titles = await textOf(page, "details.section > summary").catch(() => "(page gone)");
    throw new Error(`no section titled ${JSON.stringify(title)} within ${TIMEOUT} ms; the page has: ${JSON.stringify(titles)}`, { cause: err });
  }
}

/** Sets a form field by its name inside the form labelled `form` (fires input/change as a user would). */
export async function fill(page: Page, form: string, name: string, value: string): Promise<void> {
  await fillField(page, `form[aria-label=${JSON.stringify(form)}] [name=${JSON.stringify(name)}]`, value);
}

/** Sets the field `sel` names: a select by choosing `value`, any other by typing it (typeInto). */
export async function fillField(page: Page, sel: string, value: string): Promise<void> {
  // The form may belong to a page still rendering (a heading test such as "Connection" also
  // matches the list page being left): wait for the field itself.
  await page.waitForSelector(sel, { timeout: TIMEOUT });
  const tag = (await page.$eval(sel, (e) => (e as { tagName: string }).tagName)) as string;
  if (tag === "SELECT") {
    await page.select(sel, value);
    return;
  }
  await typeInto(page, sel, value);
}

/**
 * Replaces a text field's content from the keyboard: focus, select all, delete, type — no click
 * at screen coordinates, which a layout shift under load (a list arriving above the form) could
 * send to another element, such as the summary that folds the form away. Then checks the field
 * holds what was typed, so a lost entry fails here, by name, not as a refused submit later.
 * A field the browser will not focus (inside a section that is closed) takes no keys: the
 * sections around it are opened first, as a user would before typing, and the focus is checked
 * before any key is pressed. A form that renders again just after the focus (choosing a queue
 * type redraws its fields) replaces the focused field, and the keys go nowhere: the entry is then
 * typed again into the new field, up to TYPE_ATTEMPTS times.
 */
export async function typeInto(page: Page, sel: string, value: string): Promise<void> {
  const holds = `document.querySelector(${JSON.stringify(sel)})?.value === ${JSON.stringify(value)}`;
  const focused = `(() => {
    const e = document.querySelector(${JSON.stringify(sel)});
    if (!e) return false;
    for (let d = e.closest("details"); d; d = d.parentElement && d.parentElement.closest("details")) d.open = true;
    e.focus();
    return document.activeElement === e;
  })()`;
  for (let attempt = 1; ; attempt++) {
    const last = attempt === TYPE_ATTEMPTS;
    const wait = { timeout: last ? TIMEOUT : TIMEOUT / 5, polling: 50 };
    try {
      await page.waitForFunction(focused, wait);
      await page.keyboard.down("Control");
      await page.keyboard.press("KeyA");
      await page.keyboard.up("Control");
      await page.keyboard.press("Backspace");
      await page.keyboard.type(value);
      await page.waitForFunction(holds, wait);
      return;
    } catch (err) {
      if (!last) continue;
      throw new Error(`typed ${JSON.stringify(value)} into ${sel} ${TYPE_ATTEMPTS} times, but ${await fieldState(page, sel)}`, { cause: err });
    }
  }
}

/** What a field that would not take an entry looks like: its value, the focus, why it is not focusable. */
async function fieldState(page: Page, sel: string): Promise<string> {
  return (await page
    .evaluate(
      `(() => {
        const e = document.querySelector(${JSON.stringify(sel)});
        const a = document.activeElement;
        return JSON.stringify({
          value: e ? e.value : null,
          focused: a ? a.tagName + " " + (a.getAttribute("name") ?? a.id ?? "") : null,
          disabled: e ? e.disabled : null,
          shown: e ? e.getClientRects().length > 0 : null,
          closedSection: e ? !!e.closest("details:not([open])") : null,
          pageHasFocus: document.hasFocus(),
        });
      })()`,
    )
    .catch(() => "(page gone)")) as string;
}
