/**
 * A table's horizontal scroll container with a visible cue (issue 47, point 9): when the table is
 * wider than the window (Queues, Channels, Audit at 800 px), the side that hides columns gets a
 * shadow and an arrow, and the wrapper says so to assistive technology, so no column is hidden
 * behind a scroll without notice. The cue follows the scroll position and the container's size.
 */
import type { ComponentChildren } from "preact";
import { useEffect, useRef, useState } from "preact/hooks";
import { html } from "../html.js";

interface Overflow {
  left: boolean;
  right: boolean;
}

/** Which sides hide content; a pixel of rounding is not an overflow. */
function overflowOf(el: HTMLElement): Overflow {
  const hidden = el.scrollWidth - el.clientWidth;
  return { left: hidden > 1 && el.scrollLeft > 1, right: hidden > 1 && el.scrollLeft < hidden - 1 };
}

export function TableWrap({ children }: { children: ComponentChildren }) {
  const ref = useRef<HTMLDivElement>(null);
  const [o, setO] = useState<Overflow>({ left: false, right: false });
  useEffect(() => {
    const el = ref.current;
    if (!el) return undefined;
    const update = (): void => {
      const next = overflowOf(el);
      setO((prev) => (prev.left === next.left && prev.right === next.right ? prev : next));
    };
    update();
    el.addEventListener("scroll", update, { passive: true });
    // The table grows with its rows (live refresh) and the window may be resized: both change the overflow.
    const resize = new ResizeObserver(update);
    resize.observe(el);
    if (el.firstElementChild) resize.observe(el.firstElementChild);
    return () => {
      el.removeEventListener("scroll", update);
      resize.disconnect();
    };
  }, []);
  const cls = `table-scroll${o.left ? " more-left" : ""}${o.right ? " more-right" : ""}`;
  return html`<div class=${cls}>
    <div class="table-wrap" ref=${ref} tabindex=${o.left || o.right ? 0 : undefined} aria-label=${o.left || o.right ? "Table: scroll sideways for more columns" : undefined}>${children}</div>
    ${o.right ? html`<span class="scroll-cue scroll-cue-right" aria-hidden="true" title="More columns: scroll right"><b>›</b></span>` : null}
    ${o.left ? html`<span class="scroll-cue scroll-cue-left" aria-hidden="true" title="More columns: scroll left"><b>‹</b></span>` : null}
  </div>`;
}
