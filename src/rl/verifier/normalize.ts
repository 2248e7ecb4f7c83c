// LaTeX answer normalisation before parsing, following the steps of Math-Verify's normaliser
// (latex2sympy2_extended `normalize_latex`, configuration as Math-Verify's LatexExtractionConfig default:
// basic_latex, units, malformed_operators, nits) plus the Hendrycks MATH fixes it builds on. Written from
// their documented behaviour, not copied. Input: the text of one extracted answer (already out of \boxed{}).
// Output: LaTeX that @cortex-js/compute-engine parses, with layout, units, degrees and styling removed.
// Percent is kept as a trailing `\%` (parse.ts turns `X\%` into X/100, as Math-Verify does).

/** Unit words stripped from the end of an answer (`5 cm`, `12 feet`, `3 hours`), plural forms included. */
const UNIT_WORDS = [
  'degree',
  'deg',
  'radian',
  'rad',
  'feet',
  'foot',
  'ft',
  'inch',
  'inches',
  'in',
  'yard',
  'yd',
  'mile',
  'mi',
  'mph',
  'kmph',
  'kmh',
  'meter',
  'metre',
  'm',
  'cm',
  'mm',
  'km',
  'gram',
  'g',
  'kg',
  'kilogram',
  'pound',
  'lb',
  'ounce',
  'oz',
  'liter',
  'litre',
  'l',
  'ml',
  'gallon',
  'gal',
  'second',
  'sec',
  's',
  'minute',
  'min',
  'hour',
  'hr',
  'h',
  'day',
  'week',
  'month',
  'year',
  'yr',
  'dollar',
  'cent',
  'unit',
  'square unit',
  'cubic unit',
  'sq',
  'square',
  'cubic',
  'point',
  'way',
  'student',
  'people',
  'person',
  'time',
  'coin',
  'acre',
  'page',
  'book',
  'marble',
  'team',
  'game',
];
const UNIT_RE = new RegExp(
  `(\\d|\\}|\\s)\\s*(?:${UNIT_WORDS.map((u) => u.replace(/ /g, '\\s+')).join('|')})(?:s|es)?\\.?\\s*$`,
);

/** `\text{...}`-like wrappers that only change the font. */
const FONT_COMMANDS =
  /\\(?:mathrm|mathit|mathbf|mathsf|mathtt|textbf|textit|textrm|textnormal|textup|mbox|operatorname)\b/g;

/** Delimiters that may follow \left / \right. */
const LEFT_RIGHT =
  /\\(?:left|right|bigl|bigr|Bigl|Bigr|big|Big|biggl|biggr)\s*(\\\{|\\\}|\\langle|\\rangle|\\lvert|\\rvert|\\vert|\\lfloor|\\rfloor|\\lceil|\\rceil|\\\||[()[\]|.])/g;

/** Replace `\frac12`, `\frac1{2}`, `\frac{1}2` by `\frac{1}{2}` (Hendrycks `_fix_fracs`, malformed operators). */
export function fixFracs(s: string): string {
  return s
    .replace(/\\frac\s*(\d)\s*(\d)/g, '\\frac{$1}{$2}')
    .replace(/\\frac\s*(\d)\s*\{/g, '\\frac{$1}{')
    .replace(/\\frac\s*(\{[^{}]*\})\s*(\d)/g, '\\frac$1{$2}')
    .replace(/\\frac\s*([a-zA-Z])\s*([a-zA-Z\d])/g, '\\frac{$1}{$2}');
}

/** Replace `\sqrt2`, `\sqrt x`, `sqrt(2)` by `\sqrt{2}` (Hendrycks `_fix_sqrt`, malformed operators). */
export function fixSqrt(s: string): string {
  return s
    .replace(/\\sqrt\s*(\d|[a-zA-Z](?![a-zA-Z]))/g, '\\sqrt{$1}')
    .replace(/(^|[^\\a-zA-Z])sqrt\s*\(([^()]*)\)/g, '$1\\sqrt{$2}')
    .replace(/\\sqrt\s*\(([^()]*)\)/g, '\\sqrt{$1}');
}

/** Strip trailing `\text{...}` units and unit words, but never down to nothing (`\text{Evelyn}` stays). */
function stripUnits(s: string): string {
  let out = s;
  const textUnit = /\\text\s*\{[^{}]*\}(\s*\^\s*\{?\d\}?)?\s*$/;
  const stripped = out.replace(textUnit, '').trim();
  if (stripped !== '' && stripped !== out && !/[=,]$/.test(stripped)) out = stripped;
  for (let i = 0; i < 2; i++) {
    const next = out.replace(UNIT_RE, '$1').trim();
    if (next !== '' && next !== out) out = next;
  }
  return out;
}

/** `1,000` / `12,345.5` written with thousands separators, as a whole answer. */
const THOUSANDS = /^-?\d{1,3}(?:,\d{3})+(?:\.\d+)?$/;

/**
 * Normalise one extracted answer. Pure string work, linear in the input (the caller caps its length).
 */
export function normalizeAnswer(raw: string): string {
  let s = raw;
  // Doubled backslashes from over-escaped text (\\frac -> \frac), except in matrices where \\ ends a row.
  if (!s.includes('matrix') && !s.includes('array')) s = s.replace(/\\\\(?=[a-zA-Z])/g, '\\');
  // \approx: `x = 1/3 \approx 0.33` keeps the exact value; `x \approx 11` reads as x = 11.
  const approx = s.split(/\\approx/);
  if (approx.length > 1) s = approx[0].includes('=') ? approx[0] : approx.join('=');
  // Matrices: array environments in brackets become bmatrix; a trailing row break before \end is dropped.
  s = s.replace(
    /(?:\\left)?\[\s*\\begin\{array\}\{[^{}]*\}([\s\S]*?)\\end\{array\}\s*(?:\\right)?\]/g,
    '\\begin{bmatrix}$1\\end{bmatrix}',
  );
  s = s.replace(/\\\\\s*(\\end\{[pbv]?matrix\})/g, '$1');
  // Layout and styling.
  s = s.replace(/\r?\n|\t/g, ' ');
  s = s.replace(/\\(?:displaystyle|textstyle|scriptstyle)\b/g, '');
  s = s.replace(LEFT_RIGHT, (_m, d: string) => (d === '.' ? '' : d));
  s = s.replace(/\\(?:!|,|;|:|quad|qquad)\s*/g, (m) => (m.startsWith('\\!') ? '' : ' '));
  s = s.replace(/~/g, ' ');
  s = s.replace(/\s*\{\s*,\s*\}\s*/g, ',');
  s = s.replace(/\\\$|\$/g, '');
  s = s.replace(/\\(?:d|t|c)frac(?![a-zA-Z])/g, '\\frac');
  s = s.replace(FONT_COMMANDS, '\\text');
  s = s.replace(/\\text\s*\{\s*\}/g, '');
  // \text{9 pages}: a number and its unit written as one text; the unit goes with the other units below
  s = s.replace(/\\text\s*\{\s*([-+]?\d[\d,.]*)\s+([a-zA-Z][a-zA-Z\s.]*)\}/g, '$1 \\text{$2}');
  s = s.replace(/\\text\s*\{\s*([a-zA-Z])\s*\}/g, '$1'); // \mathrm{e}, \text{A}: a single letter is a symbol
  // Degrees: CE would turn 90^\circ into pi/2, Math-Verify keeps the number (convert_degrees=False).
  s = s.replace(/\^\s*\{?\s*\\circ\s*\}?/g, '').replace(/\^\s*\{?\s*\\degree\s*\}?/g, '');
  s = s.replace(/\\(?:circ|degree)\b/g, '').replace(/°/g, '');
  // Words.
  s = s.replace(/,?\s*\\text\s*\{\s*(?:and|or)\s*\}\s*/g, ',');
  s = s.replace(/(?<![a-zA-Z\\])(,?\s*(?:and|or))(?![a-zA-Z])/g, ',');
  s = s.replace(/\\text\s*\{\s*(?:percent|percentage|pct)\s*\}/g, '\\%');
  s = s.replace(/\s*\b(?:percentage|percent|pct)\b/g, '\\%');
  s = s.replace(/(?<!\\)%/g, '\\%');
  s = s.replace(/\binfinity\b/g, '\\infty').replace(/(?<![\\a-zA-Z])inf(?![a-zA-Z])/g, '\\infty');
  s = s.replace(/,?\s*\\(?:ldots|dots|cdots)/g, ' ');
  // Units and currency.
  s = stripUnits(s.trim());
  // Small nits: leading decimal point, trailing full stop.
  s = s
    .trim()
    .replace(/\.\s*$/, '')
    .trim();
  s = s.replace(/(^|[\s{(,=])\.(\d)/g, '$10.$2');
  // Malformed operators.
  s = fixSqrt(fixFracs(s));
  s = s.replace(/\^\s*\(([^()]*)\)/g, '^{$1}');
  s = s.replace(/\s+/g, ' ').trim();
  if (THOUSANDS.test(s)) s = s.replace(/,/g, '');
  return s;
}
