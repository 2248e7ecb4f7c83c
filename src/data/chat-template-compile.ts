// A chat template's Jinja syntax tree (@huggingface/jinja's parse) turned into JavaScript closures, for the
// constructs ChatML-style templates are made of: text, string concatenation with +, the messages loop (loop.first,
// loop.last, an else block), if / elif / else on ==, !=, and, or, not, and message fields by name or messages[i].
// The interpreter converts every message into runtime values and walks the tree on each render, tens of
// microseconds; a multi-turn rollout renders each growing chat several times a turn. Anything else compiles to a
// step that gives up when a render reaches it (as does a value outside the subset: a missing field, a number, a
// message that is not strings): chat-template.ts then renders that chat with the interpreter, so the output is
// always the interpreter's.

/** Thrown by a compiled template where it leaves its subset: the caller renders with the interpreter instead. */
export const GIVE_UP = Symbol('chat template: render with the interpreter');

/** A node of @huggingface/jinja's syntax tree, as far as this file reads it. */
interface Node {
  type: string;
  [field: string]: unknown;
}

/** What an expression yields here: a string, a boolean, undefined (only from no value), a message (an object of
 *  strings), the messages, or a loop's state. */
type Value = string | boolean | undefined | Readonly<Record<string, unknown>> | readonly unknown[] | LoopState;

class LoopState {
  constructor(
    readonly first: boolean,
    readonly last: boolean,
  ) {}
}

interface Scope {
  readonly vars: ReadonlyMap<string, Value>;
  readonly parent: Scope | null;
}

type Expr = (scope: Scope) => Value;
type Block = (scope: Scope, out: string[]) => void;

/** The interpreter's globals that are not plain booleans: a template using them gives up. */
const OTHER_GLOBALS = new Set(['none', 'None', 'raise_exception', 'range', 'strftime_now']);
const BOOLEAN_GLOBALS: ReadonlyMap<string, boolean> = new Map([
  ['true', true],
  ['True', true],
  ['false', false],
  ['False', false],
]);

function giveUp(): never {
  throw GIVE_UP;
}

function lookup(scope: Scope, name: string): Value {
  for (let s: Scope | null = scope; s; s = s.parent) if (s.vars.has(name)) return s.vars.get(name);
  return undefined; // the interpreter's undefined variable
}

/** Jinja truthiness of the values this file keeps apart (as the interpreter's __bool__). */
function truthy(v: Value): boolean {
  if (typeof v === 'string') return v.length > 0;
  if (typeof v === 'boolean') return v;
  if (v === undefined) return false;
  return giveUp();
}

function compileExpr(node: Node): Expr {
  switch (node.type) {
    case 'StringLiteral': {
      const text = node.value as string;
      return () => text;
    }
    case 'Identifier': {
      const name = node.value as string;
      if (OTHER_GLOBALS.has(name)) return giveUp;
      const constant = BOOLEAN_GLOBALS.get(name);
      if (constant !== undefined) return () => constant;
      return (scope) => lookup(scope, name);
    }
    case 'MemberExpression':
      return compileMember(node);
    case 'UnaryExpression': {
      if ((node.operator as Node).value !== 'not') return giveUp;
      const arg = compileExpr(node.argument as Node);
      return (scope) => !truthy(arg(scope));
    }
    case 'BinaryExpression':
      return compileBinary(node);
    default:
      return giveUp;
  }
}

function compileMember(node: Node): Expr {
  const object = compileExpr(node.object as Node);
  const property = node.property as Node;
  let key: string | number;
  if (property.type === 'StringLiteral' && node.computed) key = property.value as string;
  else if (property.type === 'IntegerLiteral') key = property.value as number;
  else if (property.type === 'Identifier' && !node.computed) key = property.value as string;
  else return giveUp;
  return (scope) => {
    const o = object(scope);
    if (o instanceof LoopState) return key === 'first' ? o.first : key === 'last' ? o.last : giveUp();
    if (Array.isArray(o)) {
      if (typeof key !== 'number') return giveUp();
      const item = o.at(key);
      return item === undefined ? giveUp() : (item as Value);
    }
    if (typeof o !== 'object' || o === null || typeof key !== 'string') return giveUp();
    const field = Object.hasOwn(o, key) ? (o as Record<string, unknown>)[key] : undefined;
    return typeof field === 'string' ? field : giveUp(); // a missing field may be one of the object's builtins
  };
}

/** Values == and != compare as the interpreter does (its `left.value == right.value` on these is ===). */
function simple(v: Value): boolean {
  return typeof v === 'string' || v === undefined;
}

function compileBinary(node: Node): Expr {
  const op = (node.operator as Node).value as string;
  const left = compileExpr(node.left as Node);
  const right = compileExpr(node.right as Node);
  switch (op) {
    case '+':
      return (scope) => {
        const a = left(scope),
          b = right(scope);
        return typeof a === 'string' && typeof b === 'string' ? a + b : giveUp();
      };
    case '==':
    case '!=':
      return (scope) => {
        const a = left(scope),
          b = right(scope);
        if (!(simple(a) && simple(b)) && !(typeof a === 'boolean' && typeof b === 'boolean')) return giveUp();
        return op === '==' ? a === b : a !== b;
      };
    case 'and':
      // the interpreter returns an operand; only its truthiness is used here (in tests, see compileTest)
      return (scope) => truthy(left(scope)) && truthy(right(scope));
    case 'or':
      return (scope) => truthy(left(scope)) || truthy(right(scope));
    default:
      return giveUp;
  }
}

function compileBlock(statements: readonly Node[]): Block {
  const steps = statements.map(compileStatement);
  return (scope, out) => {
    for (const step of steps) step(scope, out);
  };
}

function compileStatement(node: Node): Block {
  switch (node.type) {
    case 'Comment':
      return () => {};
    case 'If': {
      const test = compileExpr(node.test as Node);
      const body = compileBlock(node.body as Node[]);
      const alternate = compileBlock(node.alternate as Node[]);
      return (scope, out) => (truthy(test(scope)) ? body(scope, out) : alternate(scope, out));
    }
    case 'For':
      return compileFor(node);
    default: {
      // an expression statement: its value is written out
      const expr = compileExpr(node);
      return (scope, out) => {
        const v = expr(scope);
        if (typeof v === 'string') out.push(v);
        else if (v !== undefined) giveUp(); // booleans print as True / False, objects as dicts: the interpreter's
      };
    }
  }
}

function compileFor(node: Node): Block {
  const loopvar = node.loopvar as Node;
  if (loopvar.type !== 'Identifier' || (node.iterable as Node).type === 'SelectExpression') return giveUp;
  const name = loopvar.value as string;
  const iterable = compileExpr(node.iterable as Node);
  const body = compileBlock(node.body as Node[]);
  const otherwise = compileBlock(node.defaultBlock as Node[]);
  return (scope, out) => {
    const items = iterable(scope);
    if (!Array.isArray(items)) return giveUp();
    if (items.length === 0) return otherwise(scope, out);
    items.forEach((item, i) => {
      const vars = new Map<string, Value>([
        [name, item as Value],
        ['loop', new LoopState(i === 0, i === items.length - 1)],
      ]);
      body({ vars, parent: scope }, out);
    });
  };
}

/** A compiled render of a parsed template (`program`, the Template's `parsed`): renders `messages` with the same
 *  variables compileChatTemplate passes the interpreter, or throws GIVE_UP where it leaves its subset. */
export function compileJinja(
  program: unknown,
): (variables: ReadonlyMap<string, Value | readonly Readonly<Record<string, string>>[]>) => string {
  const body = compileBlock(((program as Node).body as Node[]) ?? []);
  return (variables) => {
    const out: string[] = [];
    body({ vars: variables as ReadonlyMap<string, Value>, parent: null }, out);
    return out.join('');
  };
}
