"""``classroom.similarity``: a task's solution is found in a text under other names,
re-indented, re-wrapped and without its comments; short common code is not."""

import nbformat

from classroom import notebooks, release as release_mod, similarity
from classroom.similarity import Finder, Solution, normalise

# Task 15.1's answer as it stood in book/15b_attention_backward.ipynb, and the lines of
# minitorch/nn/_functions/attention.py that held the same computation under other names.
ATTENTION_ANSWER = """\
d_weights = grad_out @ v.transpose(-1, -2)
d_scores = weights * (d_weights - (d_weights * weights).sum(-1, keepdim=True))
grad_q = (d_scores @ k) * ctx.scale
grad_k = (d_scores.transpose(-1, -2) @ q) * ctx.scale
grad_v = weights.transpose(-1, -2) @ grad_out
"""
ATTENTION_LIBRARY = """\
        grad_v = dropped.transpose(-1, -2) @ grad
        d_weights = grad @ v.transpose(-1, -2)
        if keep is not None:
            d_weights = d_weights * keep
        d_scores = weights * (d_weights - (d_weights * weights).sum(-1, keepdim=True))
        grad_q = (d_scores @ k) * ctx.scale
        grad_k = (d_scores.transpose(-1, -2) @ query) * ctx.scale
"""
# Task 6.5 (Mm.backward) and Addmm.backward of minitorch/ops/linalg.py, as on main.
MM_ANSWER = """\
b, a = ctx.saved_tensors
grad_a = grad.mm(b.t()) if b is not None else None
grad_b = a.t().mm(grad) if a is not None else None
"""
ADDMM = """\
    def backward(ctx, grad):
        a, b = ctx.saved_tensors
        need_bias = ctx.needs_input_grad[0]
        return (grad.sum_to_size(ctx.bias_shape) if need_bias else None,
                grad.mm(b.t()) if b is not None else None,
                a.t().mm(grad) if a is not None else None)
"""
LOOPS = """\
while stack:
    node = stack.pop()
    for parent in node.parents:
        counts[id(parent)] = counts.get(id(parent), 0) + 1
        if id(parent) not in seen:
            seen.add(id(parent))
            stack.append(parent)
"""


def finder(code, task="1.1", idioms=()):
    return Finder([Solution(task, "here", normalise(code))], [normalise(t) for t in idioms])


def shows(code, text, **options):
    return [m.solution.task for m in finder(code, **options).matches(normalise(text))]


def test_names_become_one_word_but_keywords_builtins_attributes_and_arguments_stay():
    tokens = normalise("total = len(xs) + ctx.scale  # a comment\nf(x, keepdim=True) == 'a'")
    assert tokens.words == ("_", "=", "len", "(", "_", ")", "+", "_", ".", "scale",
                            "_", "(", "_", ",", "keepdim", "=", "True", ")", "==", "STR")
    assert tokens.lines[-1] == 2


def test_a_copy_with_names_whitespace_wrapping_and_comments_changed_is_found():
    renamed = """\
# my own work
dw = g @ val.transpose(-1, -2)
ds = w * (dw - (dw * w).sum(-1,
                            keepdim=True))   # softmax's backward
gq = (ds @ key) * ctx.scale
"""
    assert shows(ATTENTION_ANSWER, renamed) == ["1.1"]


def test_the_two_leaks_that_were_on_main_are_found():
    assert shows(ATTENTION_ANSWER, ATTENTION_LIBRARY) == ["1.1"]
    assert shows(MM_ANSWER, ADDMM) == ["1.1"]


def test_inconsistent_renaming_is_another_program():
    # The same shape with names that repeat differently: four loops over a window are
    # not two loops over a kernel (the false positive of names collapsed to one word).
    kernel = """\
for u in range(k):
    for v in range(k):
        entry = grads[..., u, v].transpose(0, 3, 1, 2)
        out[:, :, u:u + h_out, v:v + w_out] += entry
"""
    window = """\
for i in range(h_out):
    for j in range(w_out):
        top, left = i * stride, j * stride
        window = x[b, :, top:top + kh, left:left + kw]
"""
    assert shows(kernel, window) == []


def test_short_common_code_is_not_a_leak():
    for common in ("return x", "return grad * result", "if b is not None else None",
                   "result, = ctx.saved_tensors\nreturn grad * result"):
        assert shows(LOOPS, common) == []
        assert shows(MM_ANSWER, common) == []
    # a solution too short to say anything is never looked for
    assert finder("return x").solutions == []


def test_a_part_of_a_long_solution_is_a_leak_only_when_long_enough():
    head = LOOPS.splitlines(keepends=True)
    assert shows(LOOPS, "".join(head[:3])) == []            # 17 of its 62 tokens
    assert shows(LOOPS, "".join(head[:5])) == ["1.1"]       # 47 of them (30 needed)


def test_pieces_far_apart_are_two_places_not_one_copy():
    pieces = LOOPS.splitlines(keepends=True)
    spread = "".join(pieces[:3]) + "x = 1\n" * 40 + "".join(pieces[4:])
    assert shows(LOOPS, "".join(pieces[:3] + pieces[4:])) == ["1.1"]     # 41 tokens
    assert shows(LOOPS, spread) == []


def test_a_run_the_course_uses_in_three_places_is_an_idiom():
    idiom = "grad_a = grad.mm(b.t()) if b is not None else None\n"
    assert shows(MM_ANSWER, ADDMM, idioms=[idiom, idiom]) == ["1.1"]
    assert shows(MM_ANSWER, ADDMM, idioms=[idiom, idiom, idiom]) == []


def test_printed_code_in_html_and_after_prompts_is_found():
    html = ("<pre><span class='n'>d_scores</span> <span class='o'>=</span> weights * "
            "(d_weights - (d_weights * weights).sum(-1, keepdim=True))\n"
            "grad_q = (d_scores &#64; k) * ctx.scale\n"
            "grad_k = (d_scores.transpose(-1, -2) &#64; q) * ctx.scale</pre>")
    found = finder(ATTENTION_ANSWER).matches(normalise(html, markup=True))
    assert [m.solution.task for m in found] == ["1.1"]
    prompted = "".join(">>> " + line for line in ATTENTION_ANSWER.splitlines(keepends=True))
    assert shows(ATTENTION_ANSWER, prompted) == ["1.1"]


def test_a_notebook_output_that_prints_a_solution_is_replaced_by_a_sentence():
    printing = nbformat.v4.new_code_cell("show_source(f)", outputs=[nbformat.v4.new_output(
        "stream", name="stdout", text=ATTENTION_LIBRARY)])
    other = nbformat.v4.new_code_cell("print(1)", outputs=[nbformat.v4.new_output(
        "stream", name="stdout", text="1\n")])
    notebook = nbformat.v4.new_notebook(cells=[printing, other])
    replaced = notebooks.replace_copied_outputs(notebook, finder(ATTENTION_ANSWER, "15.1"))
    assert replaced == {0: {"15.1"}}
    assert printing.outputs[0].text == notebooks.left_out_sentence({"15.1"})
    assert "task 15.1 asks you to write" in printing.outputs[0].text
    assert "nbval-ignore-output" in printing.metadata["tags"]
    assert other.outputs[0].text == "1\n"


def test_a_release_reports_a_renamed_copy_and_replaces_a_printed_one(fresh_course, tmp_path):
    from classroom import course as course_mod
    renamed = LOOPS.replace("parent", "p").replace("node", "n").replace("counts", "tally")
    (fresh_course / "minigrad" / "helpers.py").write_text(
        "def walk(stack, seen, tally):\n" + "".join("    " + line for line in
                                                  renamed.splitlines(keepends=True)))
    path = fresh_course / "book" / "01_engine.ipynb"
    notebook = nbformat.read(path, as_version=4)
    notebook.cells.append(nbformat.v4.new_code_cell("show(walk)", outputs=[
        nbformat.v4.new_output("stream", name="stdout", text=renamed)]))
    nbformat.write(notebook, path)
    out = tmp_path / "a1"
    report = release_mod.release(course_mod.load(fresh_course), out, "a1")
    assert [leak.split(":")[0] for leak in report.leaks] == ["minigrad/helpers.py"]
    assert "task 1.1's solution" in report.leaks[0]
    released = nbformat.read(out / "book" / "01_engine.ipynb", as_version=4)
    assert released.cells[-1].outputs[0].text == notebooks.left_out_sentence({"1.1"})


def test_the_thresholds_are_what_the_module_says():
    assert similarity.RUN_TOKENS <= similarity.SHORT_LEAK_TOKENS <= similarity.LEAK_TOKENS
    assert len(normalise(MM_ANSWER)) == 45
    assert Solution("x", "", normalise(MM_ANSWER)).needed == 23       # half of it
    assert Solution("x", "", normalise("y = f(x, 1) + g(x)")).needed == 13    # all of it
    assert Solution("x", "", normalise(ATTENTION_ANSWER * 3)).needed == similarity.LEAK_TOKENS
