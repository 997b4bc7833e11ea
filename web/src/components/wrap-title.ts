// Graph node titles wrapped whole, in a module of its own so it is tested without a browser.

const TITLE_CHARS = 30;
const MAX_TITLE_LINES = 4;

/** Splits a title into lines of at most `width` characters at spaces (a longer word is cut). */
export function wrapTitle(title: string, width = TITLE_CHARS, maxLines = MAX_TITLE_LINES): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of title.split(/\s+/).filter(Boolean)) {
    for (let rest = word; rest.length > 0; ) {
      const room = line ? width - line.length - 1 : width;
      if (rest.length <= room) {
        line = line ? `${line} ${rest}` : rest;
        rest = '';
      } else if (line) {
        lines.push(line);
        line = '';
      } else {
        lines.push(rest.slice(0, width));
        rest = rest.slice(width);
      }
    }
  }
  if (line) lines.push(line);
  if (lines.length <= maxLines) return lines;
  const kept = lines.slice(0, maxLines);
  kept[maxLines - 1] = `${kept[maxLines - 1]!.slice(0, width - 1)}…`;
  return kept;
}
