/** htm bound to Preact's h: tagged templates instead of JSX, so the sources need no JSX step. */
import { h } from "preact";
import htm from "htm";

export const html = htm.bind(h);
