"""The study page's trials as a reader needs them: an interrupted trial is not a failure,
durations are seconds, and trial axes count whole trials (on e81e6e0: FAIL, ``0 days
00:00:30.426187`` and ticks at 0.5); accuracies in percent like every page, and figures whose
labels are not cut off (issue 56)."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import matplotlib.text
import pandas as pd
import pytest

from reports.site import build_site
from reports.site.study_page import (
    history_figure,
    readable_trials,
    result_tables,
    slice_figure,
)


def test_an_interrupted_trial_and_durations_read_as_they_are() -> None:
    trials = pd.DataFrame(
        {
            "number": [0, 1, 2],
            "state": ["COMPLETE", "FAIL", "FAIL"],
            "duration": ["0 days 00:00:30.426187", "0 days 00:01:02.5", None],
            "user_attrs_interrupted": [None, True, None],
        }
    )
    shown = readable_trials(trials)
    assert list(shown["state"]) == ["COMPLETE", "INTERRUPTED", "FAIL"]
    assert list(shown["duration"]) == ["30.4 s", "62.5 s", "–"]
    assert list(trials["state"]) == ["COMPLETE", "FAIL", "FAIL"]  # the data is not changed


def test_the_history_counts_whole_trials() -> None:
    trials = pd.DataFrame({"number": [0, 1, 2], "state": ["COMPLETE"] * 3, "v": [3.0, 1.0, 2.0]})
    figure = history_figure(trials, "v", "minimize")
    ticks = figure.axes[0].get_xticks()
    assert len(ticks) >= 2 and all(float(tick).is_integer() for tick in ticks)


STUDY = Path(__file__).resolve().parents[1] / "fixtures" / "study-dropout-trec"


def clipped_texts(figure: plt.Figure) -> list[str]:
    """The texts of ``figure`` that reach outside it (cut off in the PNG)."""
    figure.canvas.draw()
    inside = figure.bbox.padded(1)
    renderer = figure.canvas.get_renderer()
    return [
        text.get_text()
        for text in figure.findobj(matplotlib.text.Text)
        if text.get_visible() and text.get_text().strip()
        for box in [text.get_window_extent(renderer)]
        if box.x0 < inside.x0 or box.y0 < inside.y0 or box.x1 > inside.x1 or box.y1 > inside.y1
    ]


def test_the_check_sees_a_clipped_label() -> None:
    figure, axes = plt.subplots()
    axes.set_ylabel("a label")
    figure.subplots_adjust(left=0.0)
    assert "a label" in clipped_texts(figure)
    plt.close(figure)


@pytest.mark.parametrize("params", [1, 2, 3])
def test_no_label_of_the_slice_figure_is_cut_off(params: int) -> None:
    """Issue 56: ``slice_dev_acc.png`` cut its labels off."""
    trials = pd.read_csv(STUDY / "trials.csv")
    columns = [c for c in trials.columns if c.startswith("params_")]
    for index in range(len(columns), params):
        trials[f"params_extra_{index}"] = trials["number"] * 0.1
        columns.append(f"params_extra_{index}")
    figure = slice_figure(trials, "value_dev_acc", columns[:params])
    assert clipped_texts(figure) == []
    plt.close(figure)


def test_an_accuracy_objective_is_drawn_in_percent() -> None:
    trials = pd.read_csv(STUDY / "trials.csv")
    for figure in (
        history_figure(trials, "value_dev_acc", "maximize"),
        slice_figure(trials, "value_dev_acc", ["params_keep_prob"]),
    ):
        axes = figure.axes[0]
        assert axes.get_ylabel() == "dev acc (%)"
        low, high = axes.get_ylim()
        assert 30 < low < 38.6 and 54.2 < high < 60  # the complete trials' 38.6% ... 54.2%
        plt.close(figure)


@pytest.mark.slow  # builds a page
def test_the_study_page_shows_accuracies_as_every_page_does(tmp_path: Path) -> None:
    """Issue 56: ``dev_acc`` 0.312 on the study page, 31.2% everywhere else."""
    index = build_site([STUDY], tmp_path / "site")
    html = (tmp_path / "site" / "study-dropout-trec" / "index.html").read_text()
    best = html.split('id="best"', 1)[1].split("</table>", 1)[0]
    assert "<td>54.2</td>" in best and "0.542" not in best
    trials = html.split('id="trials"', 1)[1].split("</table>", 1)[0]
    assert "<td>45.4</td>" in trials and "<td>28.2</td>" in trials and "0.454" not in trials
    assert "dev_acc 54.2%" in index.read_text()
    missing = [
        src
        for src in re.findall(r'src="([^"]+)"', html)
        if not (index.parent / "study-dropout-trec" / src).is_file()
    ]
    assert missing == []  # the study's own figures are linked only where the folder has them


def test_memory_objectives_are_drawn_on_a_log_axis_that_says_so() -> None:
    """Issue 56 (H31 item 8): the history and slice figures of a study minimising memory
    labelled it ``peak_train_mem_mb`` on a linear axis, against the site's rule (memory on a
    log axis, its label naming unit and scale: docs/reports.md)."""
    trials = pd.DataFrame(
        {
            "number": [0, 1, 2],
            "state": ["COMPLETE"] * 3,
            "values_dev_acc": [0.4, 0.5, 0.45],
            "values_peak_train_mem_mb": [12.0, 90.0, 700.0],
            "params_block_len": [2, 4, 8],
        }
    )
    figures = [
        history_figure(trials, "values_peak_train_mem_mb", "minimize"),
        slice_figure(trials, "values_peak_train_mem_mb", ["params_block_len"]),
    ]
    for figure in figures:
        axes = figure.axes[0]
        assert axes.get_yscale() == "log"
        assert axes.get_ylabel() == "training memory (MB), log scale", axes.get_ylabel()
        plt.close(figure)
    accuracy = history_figure(trials, "values_dev_acc", "maximize")  # not a cost: as it was
    assert (accuracy.axes[0].get_yscale(), accuracy.axes[0].get_ylabel()) == (
        "linear",
        "dev acc (%)",
    )
    plt.close(accuracy)


BLOCK_LENGTH_STUDY = Path(__file__).resolve().parents[1] / "fixtures" / "study-block-length-memory"


def test_a_per_length_slice_draws_each_length_in_its_colour() -> None:
    """Outside check of issue 56, item 13: Appendix A's slice figure pooled every length
    against the block length, coloured by trial number, so which length a point belongs to
    could not be read. Per length (the study's ``best_per``), each length is a line of its
    own, in the colour the history figure gives it, named in the legend."""
    trials = pd.read_csv(BLOCK_LENGTH_STUDY / "trials.csv")
    params = ["params_block_len", "params_seq_len"]
    figure = slice_figure(trials, "value_peak_mem_mb", params, "seq_len")
    history = history_figure(trials, "value_peak_mem_mb", "minimize", "seq_len")
    (axes,) = figure.axes  # block length only: no colour bar, no panel of the lengths
    assert axes.get_xlabel() == "r (block_len)" and axes.get_yscale() == "log"
    lines = {line.get_label(): line for line in axes.get_lines()}
    assert list(lines) == ["n (seq_len) = 4", "n (seq_len) = 8"]
    assert [t.get_text() for t in axes.get_legend().get_texts()] == list(lines)
    colours = {line.get_color() for line in history.axes[0].get_lines()}
    for n, line in zip((4, 8), lines.values(), strict=True):
        own = trials[trials["params_seq_len"] == n].sort_values("params_block_len")
        assert list(line.get_xdata()) == list(own["params_block_len"])
        assert list(line.get_ydata()) == list(own["value_peak_mem_mb"])
        assert line.get_color() in colours
    plt.close(figure)
    plt.close(history)


def test_study_results_are_named_in_words() -> None:
    """Outside check of issue 56, item 13: the per-length table's columns were the raw keys
    (``r_eq19_int_cost``, ``excess_at_r_encoder``), the excess a bare fraction (0.164)."""
    results = {
        "shape": "[64, n, 300]",
        "attention_impl": "naive",
        "per_length": [
            {
                "seq_len": 64,
                "r_measured": 4,
                "mem_measured_mb": 70.48,
                "r_eq19": 5.0397,
                "r_eq19_int_cost": 5,
                "r_encoder": 6,
                "mem_at_r_encoder_mb": 82.07,
                "excess_at_r_encoder": 0.16443,
                "points": 31,
            },
        ],
    }
    facts, (table,) = result_tables(results)
    assert facts == {"input shape": "[64, n, 300]", "the blocks' tanh attention": "naive"}
    assert table["title"] == "Per length n"
    assert table["header"] == [
        "n (seq_len)",
        "measured argmin r (block_len)",
        "its peak (MB)",
        "Eq. 19 cbrt(2n)",
        "argmin of r^2 ceil(n/r) + ceil(n/r)^2",
        "encoder default ceil(cbrt(2n))",
        "peak at the default (MB)",
        "excess memory at the default",
        "r tried",
    ]
    assert table["rows"] == [["64", "4", "70.5", "5.04", "5", "6", "82.1", "+16.4 %", "31"]]
    other = result_tables({"rows": [{"excess_at_r_encoder": None, "width": 3}]})[1][0]
    assert other["header"] == ["excess memory at the default", "width"]
    assert other["rows"] == [["–", "3"]]


@pytest.mark.slow  # builds two pages
def test_a_study_without_trial_runs_does_not_point_to_them(tmp_path: Path) -> None:
    """Outside check of issue 56, item 13: Appendix A's study page said "environment: not
    recorded by this study (see its trials' runs)", though its trials are measured forwards
    with no run folder; a training study's trials have one each. Issue 56 leftovers: a training
    study written before its trials recorded where they ran and what CPU they got says that
    plainly, beside its trials too (the committed dropout study)."""
    build_site([BLOCK_LENGTH_STUDY, STUDY], tmp_path / "site")

    def environment(slug: str) -> str:
        html = (tmp_path / "site" / slug / "index.html").read_text()
        return " ".join(html.split("<dt>environment</dt>", 1)[1].split("</dd>", 1)[0].split())

    assert environment("study-block-length-memory") == "<dd>not recorded by this study"
    assert environment("study-dropout-trec") == (
        "<dd>not recorded: this study&#39;s trials.csv has no column of where its trials ran or"
        " of the load and CPU they got (written by sanbench before 2026-11-30; a trial&#39;s"
        " metrics.json has them where its run folder is kept)"
    )
    html = (tmp_path / "site" / "study-dropout-trec" / "index.html").read_text()
    trials = " ".join(html.split('id="trials"', 1)[1].split())
    assert "does not record whether its trials were contended" in trials
    memory = (tmp_path / "site" / "study-block-length-memory" / "index.html").read_text()
    assert "does not record whether its trials were contended" not in memory


@pytest.mark.slow  # builds a page
def test_the_page_says_where_trials_ran_and_shows_the_contended_ones(tmp_path: Path) -> None:
    """Issue 56 leftovers: a training study's page said "environment: not recorded by this
    study (see its trials' runs)", and a contended trial was marked without its evidence (the
    load average and the CPU it got, which other pages give)."""
    study = tmp_path / "study-dropout-trec"
    shutil.copytree(STUDY, study)
    trials = pd.read_csv(study / "trials.csv")
    trials["user_attrs_host"] = ["vm-a"] * 4 + ["vm-b"] * 2
    trials["user_attrs_device_name"] = "AMD EPYC 7B13"
    trials["user_attrs_threads"], trials["user_attrs_torch"] = 2, "2.13.0+cpu"
    trials["user_attrs_train_load_avg_before"] = [1.9, 2.0, 2.1, 2.2, 13.21, 2.0]
    trials["user_attrs_train_load_avg_after"] = [2.0, 2.1, 2.2, 2.3, 14.5, 2.1]
    trials["user_attrs_train_cpu_granted"] = [0.95, 0.9, 0.93, 0.97, 0.2026, 0.91]
    trials["user_attrs_train_contended"] = trials["user_attrs_train_cpu_granted"] < 0.5
    trials.to_csv(study / "trials.csv", index=False)
    build_site([study], tmp_path / "site")
    html = (tmp_path / "site" / "study-dropout-trec" / "index.html").read_text()
    provenance = html.split('id="provenance"', 1)[1].split("</dl>", 1)[0]
    env = dict(re.findall(r"<dt>(.*?)</dt><dd>(.*?)</dd>", provenance))
    assert env["host"] == "vm-a (trials 0, 1, 2, 3); vm-b (trials 4, 5)"
    shown = (env["device_name"], env["threads"], env["torch"])
    assert shown == ("AMD EPYC 7B13", "2", "2.13.0+cpu")
    assert env["load average"] == "1.90–14.50 around the trials&#39; training epochs"
    assert env["CPU granted"] == "20.3–97.0 % (the trials&#39; training epochs)"
    assert "environment" not in env and "does not record whether" not in html
    contended = html.split('id="contended"', 1)[1].split("</table>", 1)[0]
    rows = [re.findall(r"<td[^>]*>(.*?)</td>", r) for r in re.findall(r"<tr>(.*?)</tr>", contended)]
    assert [r for r in rows if r] == [["4", "vm-b", "20.3", "13.21 → 14.50", "2.1"]]


@pytest.mark.slow  # builds pages
def test_the_page_names_the_options_and_budget_every_trial_ran_with(tmp_path: Path) -> None:
    """Outside check C of #56, item 10: trials ran with '--optimizer torch.optim.SGD
    --optimizer.lr 0.05 --lr_scheduler StepLR --trainer.callbacks LearningRateMonitor'; the
    page named none of them (only study, task, encoder, seed, storage)."""
    study = tmp_path / "study-dropout-trec"
    shutil.copytree(STUDY, study)
    manifest = json.loads((study / "manifest.json").read_text())
    manifest["overrides"] = {
        "trainer.callbacks": [{"class_path": "LearningRateMonitor"}],
        "optimizer.class_path": "torch.optim.SGD",
        "optimizer.init_args": {"lr": 0.05},
        "lr_scheduler.class_path": "StepLR",
        "lr_scheduler.init_args": {"step_size": 1},
        "trainer.max_steps": 3,
    }
    (study / "manifest.json").write_text(json.dumps(manifest))
    build_site([study, BLOCK_LENGTH_STUDY, STUDY], tmp_path / "site")

    def options(slug: str) -> str:
        html = (tmp_path / "site" / slug / "index.html").read_text()
        found = re.search(r'<p id="options">(.*?)</p>', html, re.S)
        return " ".join(found[1].split()) if found else ""

    assert options("study-dropout-trec") == (
        "Budget of every trial: trainer.max_steps=3. Options of every trial: "
        "trainer.callbacks=[LearningRateMonitor()], optimizer=torch.optim.SGD(lr=0.05), "
        "lr_scheduler=StepLR(step_size=1)."
    )
    assert (
        options("study-dropout-trec-2")
        == "Options of every trial: the task's defaults (none given)."
    )
    assert options("study-block-length-memory") == ""  # it trains nothing


def headers(html: str, section: str) -> list[str]:
    """The column headers of the first table after ``id="section"``."""
    table = html.split(f'id="{section}"', 1)[1].split("</table>", 1)[0]
    return re.findall(r"<th(?: [^>]*)?>(.*?)</th>", table)


@pytest.mark.slow  # builds two pages
def test_the_study_pages_name_objectives_and_parameters_in_words(tmp_path: Path) -> None:
    """Outside check 56h item 5: the study pages headed columns and figures with trials.csv's
    keys ('Best trial per seq_len' over a column 'peak_mem_mb', the trials' 'value_peak_mem_mb'
    and 'value_dev_acc', 'Slices: peak_mem_mb vs block_len', the legend's 'seq_len=8', the
    contended trials' 'train_time_s' without its unit), while the per-length table just below
    said 'n (seq_len)', 'r (block_len)' and 'its peak (MB)'."""
    study = tmp_path / "study-dropout-trec"
    shutil.copytree(STUDY, study)
    trials = pd.read_csv(study / "trials.csv")
    trials["user_attrs_train_contended"] = [False] * 5 + [True]
    trials["user_attrs_train_time_s"] = 11.9
    trials.to_csv(study / "trials.csv", index=False)
    per_length = tmp_path / "study-block-length-memory"  # best per n, as tune writes it now
    shutil.copytree(BLOCK_LENGTH_STUDY, per_length)
    summary = json.loads((per_length / "summary.json").read_text())
    summary["best_per"] = "seq_len"
    summary["best"].append(
        {"number": 5, "params": {"seq_len": 8, "block_len": 19}, "values": [0.12]}
    )
    (per_length / "summary.json").write_text(json.dumps(summary))
    build_site([per_length, study], tmp_path / "site")
    memory = (tmp_path / "site" / "study-block-length-memory" / "index.html").read_text()
    assert '<h2 id="best">Best trial per n (seq_len)</h2>' in memory
    assert headers(memory, "best") == ["trial", "parameters", "peak memory (MB)"]
    assert "n (seq_len) = 4, r (block_len) = " in memory.split('id="best"', 1)[1]
    shown = ["number", "state", "peak memory (MB)", "n (seq_len)", "r (block_len)", "duration"]
    assert headers(memory, "trials") == shown  # as the console names them
    assert "Objectives: peak memory (MB) (minimize)" in " ".join(memory.split())
    dropout = (tmp_path / "site" / "study-dropout-trec" / "index.html").read_text()
    assert headers(dropout, "best") == ["trial", "parameters", "dev acc (%)"]
    assert headers(dropout, "trials")[2] == "dev acc (%)"
    assert headers(dropout, "contended")[-1] == "training time (s)"
    assert "train_time_s" not in dropout.split('id="trials"', 1)[1].split("Data files", 1)[0]
    columns = ["params_block_len", "params_seq_len"]
    block = pd.read_csv(BLOCK_LENGTH_STUDY / "trials.csv")
    history = history_figure(block, "value_peak_mem_mb", "minimize", "seq_len")
    figure = slice_figure(block, "value_peak_mem_mb", columns, "seq_len")
    assert history.axes[0].get_title() == "Optimization history: peak memory (MB)"
    legend = [t.get_text() for t in history.axes[0].get_legend().get_texts()]
    assert legend == ["n (seq_len) = 4: best (minimize)", "n (seq_len) = 8: best (minimize)"]
    assert figure._suptitle.get_text() == (
        "Slices: peak memory (MB) vs r (block_len),\none colour per n (seq_len)"
    )
    assert clipped_texts(figure) == []
    plt.close(history)
    plt.close(figure)


@pytest.mark.slow  # builds a page
def test_a_page_compared_per_length_shows_no_pooled_figure_of_optunas(tmp_path: Path) -> None:
    """Outside check 56h item 6: under 'trials of different seq_len are not compared', the
    block-length-memory page showed optuna's history, slice and importances pooled over every
    length, unflagged (a folder written before tune stopped drawing them)."""
    study = tmp_path / "study-block-length-memory"
    shutil.copytree(BLOCK_LENGTH_STUDY, study)
    summary = json.loads((study / "summary.json").read_text())
    (study / "summary.json").write_text(json.dumps({**summary, "best_per": "seq_len"}))
    build_site([study, BLOCK_LENGTH_STUDY], tmp_path / "site")
    pooled = (tmp_path / "site" / "study-block-length-memory" / "index.html").read_text()
    assert 'src="study/history.png"' not in pooled and "Drawn by the study" not in pooled
    assert (
        "optuna's own figures of this study are not shown: each pools every n (seq_len), "
        "whose trials are not compared (the figures above draw each n (seq_len) in a colour of "
        "its own)." in " ".join(pooled.split())
    )
    whole = (tmp_path / "site" / "study-block-length-memory-2" / "index.html").read_text()
    assert 'src="study/history.png"' in whole  # a study compared as a whole keeps them


def test_the_page_says_a_tie_and_orders_parameters_as_the_console(tmp_path: Path) -> None:
    """Outside check 56j of #56, item 9: the block-length-memory console named n then r, its
    page's trials table r then n (trials.csv's columns, by name); a best trial tied with others
    was not said to be tied on the page."""
    per_length = tmp_path / "study-block-length-memory"
    shutil.copytree(BLOCK_LENGTH_STUDY, per_length)
    summary = json.loads((per_length / "summary.json").read_text())
    summary["best"][0]["tied_with"] = [3, 4]
    (per_length / "summary.json").write_text(json.dumps(summary))
    build_site([per_length], tmp_path / "site")
    page = (tmp_path / "site" / "study-block-length-memory" / "index.html").read_text()
    shown = ["number", "state", "peak memory (MB)", "n (seq_len)", "r (block_len)", "duration"]
    assert headers(page, "trials") == shown
    best = page.split('id="best"', 1)[1].split("</table>", 1)[0]
    assert "<td>0 (tied with trials 3, 4)</td>" in best


def test_the_page_says_why_a_figure_of_the_study_is_not_drawn(tmp_path: Path) -> None:
    """Outside check 56k of #56, item 11: the dropout study's page left importances out without
    a word; the reason was only in summary.json's figures_not_drawn."""
    study = tmp_path / "study-dropout-trec"
    shutil.copytree(STUDY, study)
    summary = json.loads((study / "summary.json").read_text())
    why = "one searched parameter (model.dropout): optuna ranks it 1.00 whatever the trials"
    summary["figures_not_drawn"] = {"importances": why}
    (study / "summary.json").write_text(json.dumps(summary))
    build_site([study], tmp_path / "site")
    html = (tmp_path / "site" / "study-dropout-trec" / "index.html").read_text()
    figures = html.split('id="figures"', 1)[1].split('id="trials"', 1)[0]
    assert f"Not drawn by the study: importances, {why}." in figures
