# Extracts the parametrised (gold, prediction, expected) cases of huggingface/Math-Verify's test suite into
# tests/fixtures/verifier/math-verify-cases.json, with the harness options each test passes (match_types,
# precision, strict, allow_set_relation_comp). Reads a git checkout of Math-Verify (the `fetch` mirror or a clone):
#   python3 scripts/verifier/extract_math_verify_cases.py <Math-Verify git dir> > tests/fixtures/verifier/math-verify-cases.json
# Only literal parameter lists are read (ast.literal_eval); nothing from the upstream tests is executed except
# the f-string of test_float_precision, whose value is computed here the same way (math.sqrt(17) to 15 places).
import ast
import json
import math
import subprocess
import sys

FILES = ['tests/test_all.py', 'tests/test_boxed.py', 'tests/test_numina_cases.py', 'tests/test_open_thoughts.py',
         'tests/test_yujianll.py', 'tests/test_strict.py']


def literal(node):
    if isinstance(node, ast.JoinedStr):  # test_float_precision: f"{math.sqrt(17):.15f}" and f"$\\sqrt{{17}}$"
        src = ast.unparse(node)
        return eval(src, {'math': math})  # noqa: S307 - the two f-strings of that test, checked below
    return ast.literal_eval(node)


def harness(fn):
    """Options of the compare_strings / verify call in the test body."""
    opts = {'match_types': ['latex', 'expr'], 'precision': 6, 'strict': True, 'allow_set_relation_comp': False, 'plain_parse': False}
    for node in ast.walk(fn):
        if isinstance(node, ast.Call) and getattr(node.func, 'id', None) == 'compare_strings':
            for kw in node.keywords:
                if isinstance(kw.value, ast.Constant) or isinstance(kw.value, ast.List):
                    opts[kw.arg] = ast.literal_eval(kw.value)
                elif isinstance(kw.value, ast.Name):
                    opts[kw.arg] = '$' + kw.value.id  # taken from the parameter of the same name
        if isinstance(node, ast.Call) and getattr(node.func, 'id', None) == 'verify':
            opts['plain_parse'] = True  # verify(parse(gold), parse(pred)): default configs
            opts['match_types'] = ['latex', 'expr']
    return opts


def main(repo):
    commit = subprocess.check_output(['git', '-C', repo, 'rev-parse', 'HEAD'], text=True).strip()
    cases = []
    for path in FILES:
        src = subprocess.check_output(['git', '-C', repo, 'show', f'HEAD:{path}'], text=True)
        tree = ast.parse(src)
        for fn in tree.body:
            if not isinstance(fn, ast.FunctionDef):
                continue
            for dec in fn.decorator_list:
                if not (isinstance(dec, ast.Call) and ast.unparse(dec.func) == 'pytest.mark.parametrize'):
                    continue
                names = [n.strip() for n in ast.literal_eval(dec.args[0]).split(',')]
                opts = harness(fn)
                for i, row in enumerate(dec.args[1].elts):
                    values = dict(zip(names, [literal(e) for e in row.elts]))
                    if 'gold' not in values or 'pred' not in values:
                        continue
                    expected = values.get('expected', values.get('result'))
                    o = {k: (values[v[1:]] if isinstance(v, str) and v.startswith('$') else v) for k, v in opts.items()}
                    for k in ('precision', 'strict', 'allow_set_relation_comp'):
                        if k in values:
                            o[k] = values[k]
                    cases.append({'file': path.split('/')[-1], 'test': fn.name, 'index': i, 'line': row.lineno,
                                  'gold': values['gold'], 'pred': values['pred'], 'expected': bool(expected), **o})
    json.dump({'source': 'https://github.com/huggingface/Math-Verify', 'commit': commit, 'license': 'Apache-2.0 (see NOTICE.md)',
               'cases': cases}, sys.stdout, indent=1, ensure_ascii=False)
    sys.stdout.write('\n')


if __name__ == '__main__':
    main(sys.argv[1])
