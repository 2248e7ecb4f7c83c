// Text as every reader takes it: a UTF-8 byte-order mark at the start (as some editors save files) is not part of
// the text, as the WHATWG TextDecoder (the page's reader) drops it; Node's readFile(path, 'utf8') keeps it.

/** `text` without a leading byte-order mark (U+FEFF). */
export function withoutBom(text: string): string {
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}
