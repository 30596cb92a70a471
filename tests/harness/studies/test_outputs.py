"""A training study's outputs say a dev accuracy in one unit, percent, as its page does: the
console's trial lines and optuna's figures (issue 56 outside check C item 10)."""

from __future__ import annotations

from pathlib import Path

import matplotlib.pyplot as plt
import optuna
import pytest

from harness.studies.console_lines import summary_lines
from harness.studies.outputs import (
    _figures,
    best_trials,
    tied_with,
    unvalidated_notes,
    write_figures,
    write_outputs,
)
from harness.studies.plans import StudyPlan
from harness.studies.study import trial_line
from reports import numbers


@pytest.fixture
def study() -> optuna.Study:
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    study = optuna.create_study(direction="maximize")
    for keep, acc in ((0.8, 0.078125), (0.75, 0.5), (0.9, 0.25)):
        study.add_trial(
            optuna.trial.create_trial(
                params={"keep_prob": keep},
                distributions={"keep_prob": optuna.distributions.FloatDistribution(0.5, 1.0)},
                value=acc,
            )
        )
    return study


def plan() -> StudyPlan:
    return StudyPlan("dropout", ["dev_acc"], ["maximize"], lambda trial: 0.0, 3)


def test_a_trial_line_gives_a_dev_accuracy_in_percent(study: optuna.Study) -> None:
    """The console said 'dev_acc=0.078125' where the page said 7.8%."""
    assert trial_line(plan(), study.trials[0]) == "trial 0: keep_prob = 0.8 -> dev acc (%) = 7.8"


def test_optunas_figures_draw_a_dev_accuracy_in_percent_and_every_trial_visibly(
    study: optuna.Study,
) -> None:
    """optuna's history and slice figures drew 0.078 where the page says 7.8 %, and its slice
    plot drew trial 0 white at the white end of its colour scale (invisible)."""
    figures = _figures(study, plan())
    for name in ("history", "slice"):
        axes = figures[name]()
        axes = axes.flat[0] if hasattr(axes, "flat") else axes
        axes.get_figure().canvas.draw()
        assert axes.get_ylabel() == "dev acc (%)"
        ticks = [float(label.get_text()) for label in axes.get_yticklabels()]
        assert min(ticks) <= 7.8125 and 50 <= max(ticks) <= 60, ticks
        if name == "history":  # optuna's best-so-far line is kept
            assert [line.get_label() for line in axes.lines] == ["Best Value"]
        else:
            colours = axes.collections[0].get_facecolors()  # the trials
            assert len(colours) == 3 and all(min(c[:3]) < 0.9 for c in colours), colours
        plt.close("all")


def test_a_study_whose_trials_never_validated_says_nothing_could_be_pruned() -> None:
    """Outside check C of #56, item 10: 3-step trials never validated, yet the page said only
    'median pruner on val_acc, after each validation but the first and the last'."""
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    study = optuna.create_study(direction="maximize", pruner=optuna.pruners.MedianPruner())
    study.add_trial(optuna.trial.create_trial(value=0.078125))
    [note] = unvalidated_notes(study)
    assert (
        note.startswith("No trial validated during training") and "nothing could be pruned" in note
    )
    study.add_trial(optuna.trial.create_trial(value=0.5, intermediate_values={1: 0.5}))
    assert unvalidated_notes(study) == []  # one validated: the pruner's note is true
    off = optuna.create_study(direction="maximize", pruner=optuna.pruners.NopPruner())
    off.add_trial(optuna.trial.create_trial(value=0.078125))
    assert unvalidated_notes(off) == []  # off: its note says so


def test_optunas_figures_are_not_drawn_for_a_study_compared_per_length(tmp_path) -> None:
    """Outside check 56h item 6: block-length-memory's page says trials of different seq_len
    are not compared, and below its own per-length figures showed optuna's, which pool every
    length: one 'Best Value' line over all, a slice coloured by trial, importances ranking
    seq_len as a tuned choice."""
    study = optuna.create_study(direction="minimize")
    grid = {"seq_len": optuna.distributions.IntDistribution(4, 8)}
    grid["block_len"] = optuna.distributions.IntDistribution(2, 8)
    for n, r, peak in ((4, 2, 1.0), (4, 3, 1.5), (8, 2, 3.0), (8, 4, 2.5)):
        study.add_trial(
            optuna.trial.create_trial(
                params={"seq_len": n, "block_len": r}, distributions=grid, value=peak
            )
        )
    per_length = StudyPlan(
        "block-length-memory", ["peak_mem_mb"], ["minimize"], lambda t: 0.0, 4, best_per="seq_len"
    )
    drawn, skipped = write_figures(study, per_length, tmp_path)
    assert drawn == {} and list(tmp_path.iterdir()) == []
    assert set(skipped) == {"history", "importances", "slice"}
    assert set(skipped.values()) == {
        "optuna's figure pools every seq_len, whose trials are not compared: the page draws "
        "each seq_len in a colour of its own"
    }


def test_importances_are_not_drawn_for_a_study_of_one_searched_parameter(tmp_path) -> None:
    """optuna's importances of a single parameter is a bar at 1.00 whatever the trials: it
    said nothing and read as a finding. The reason is listed instead; the rest is drawn."""
    study = optuna.create_study(direction="maximize")
    space = {"model.dropout": optuna.distributions.FloatDistribution(0.0, 0.5)}
    for dropout, accuracy in ((0.1, 0.5), (0.3, 0.6), (0.4, 0.55)):
        study.add_trial(
            optuna.trial.create_trial(
                params={"model.dropout": dropout}, distributions=space, value=accuracy
            )
        )
    plan = StudyPlan("dropout", ["dev_acc"], ["maximize"], lambda t: 0.0, 3)
    drawn, skipped = write_figures(study, plan, tmp_path)
    assert set(drawn) == {"history", "slice"}
    assert skipped == {
        "importances": "one searched parameter (model.dropout): optuna ranks it 1.00 whatever "
        "the trials, so there is nothing to compare"
    }


def test_a_tied_best_trial_says_so_and_its_values_round_as_on_its_page(
    tmp_path: Path,
) -> None:
    """Outside check 56j of #56, item 9: the console said 'keep_prob = 0.690642' where the page
    said 0.691, and a best trial whose dev score two trials shared was not said to be tied."""
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    study = optuna.create_study(direction="maximize")
    for keep in (0.690642, 0.8455):
        study.add_trial(
            optuna.trial.create_trial(
                params={"keep_prob": keep},
                distributions={"keep_prob": optuna.distributions.FloatDistribution(0.5, 1.0)},
                value=0.223,
            )
        )
    summary = write_outputs(study, plan(), tmp_path / "s", "memory", "", None, {})
    assert summary["best"][0]["tied_with"] == [1]
    assert "best: trial 0: keep_prob = 0.691 -> dev acc (%) = 22.3 (tied with trial 1)" in (
        summary_lines(summary)
    )
    assert numbers.text(0.690642) == "0.691"  # the page's


def test_importances_are_not_drawn_when_one_parameter_took_a_single_value(tmp_path) -> None:
    """Outside check 56k of #56, item 11: a search of model.dropout and model.optimizer: [adam]
    (a single choice, which cannot matter) drew importances with each at 0.50, read as a
    finding. Only a parameter with more than one value in the finished trials counts."""
    study = optuna.create_study(direction="maximize")
    space = {
        "model.dropout": optuna.distributions.FloatDistribution(0.1, 0.5),
        "model.optimizer": optuna.distributions.CategoricalDistribution(["adam"]),
    }
    for dropout in (0.1, 0.3, 0.4):
        study.add_trial(
            optuna.trial.create_trial(
                params={"model.dropout": dropout, "model.optimizer": "adam"},
                distributions=space,
                value=0.25,
            )
        )
    plan = StudyPlan("search", ["dev_acc"], ["maximize"], lambda t: 0.0, 3)
    drawn, skipped = write_figures(study, plan, tmp_path)
    assert set(drawn) == {"history", "slice"}
    assert skipped == {
        "importances": "one parameter varied (model.dropout; model.optimizer took one value in "
        "the finished trials): optuna ranks what took one value as if it mattered, so there is "
        "nothing to compare"
    }


def test_the_block_length_studys_tie_is_said_and_its_tables_agree() -> None:
    """Outside check 56k of #56, item 10: two trials at the same dev score and memory (r = 27
    and 24) gave 'r of the best dev score: 27' with no tie, two identical Pareto rows with no
    word, the Pareto table by r where the Best trials table is by trial, and raw keys
    (block_len, best_dev_acc) for headers."""
    from harness.studies.block_length import dev_results
    from reports.site.study_page import result_tables

    study = optuna.create_study(directions=["maximize", "minimize"])
    space = {"block_len": optuna.distributions.IntDistribution(2, 40)}
    for r in (27, 24):
        study.add_trial(
            optuna.trial.create_trial(
                params={"block_len": r}, distributions=space, values=[0.25, 116.0]
            )
        )
    results = dev_results(study, "dev_acc")
    assert results["best_r_by_dev"] == 27 and results["best_r_by_dev_tied_with"] == [1]
    assert [row["trial"] for row in results["pareto"]] == [0, 1]
    objectives = ["dev_acc", "peak_train_mem_mb"]
    plan = StudyPlan("block-length", objectives, ["maximize", "minimize"], lambda t: 0.0, 2)
    assert [t.number for t in best_trials(study, plan)] == [0, 1]
    assert tied_with(study, plan, study.trials[0]) == [1]
    summary = {"optuna_study": "b", "objectives": dict.fromkeys(objectives, "")}
    summary |= {"trial_counts": {"complete": 2}, "results": results}
    summary["best"] = [
        {"number": t.number, "params": t.params, "values": t.values, "tied_with": [1 - t.number]}
        for t in study.trials
    ]
    lines = summary_lines(summary)
    assert "  r of the best dev score: 27 (tied with trial 1)" in lines
    assert "  best dev acc (%): 25.0%" in lines
    assert not any("tied_with" in line for line in lines)
    facts, tables = result_tables(results)
    assert facts["r of the best dev score"] == "27 (tied with trial 1)"
    assert tables[0]["header"] == [
        "trial",
        "r (block_len)",
        "dev acc (%)",
        "training memory (MB)",
    ]
    assert [row[:2] for row in tables[0]["rows"]] == [["0", "27"], ["1", "24"]]


def head_and_optimizer(trials: list[tuple[int, str, float]]) -> optuna.Study:
    """A search of model.head_hidden {100..200 step 100} and model.optimizer [adam, adadelta]."""
    study = optuna.create_study(direction="maximize")
    space = {
        "model.head_hidden": optuna.distributions.IntDistribution(100, 200, step=100),
        "model.optimizer": optuna.distributions.CategoricalDistribution(["adam", "adadelta"]),
    }
    for hidden, optimizer, accuracy in trials:
        params = {"model.head_hidden": hidden, "model.optimizer": optimizer}
        study.add_trial(
            optuna.trial.create_trial(params=params, distributions=space, value=accuracy)
        )
    study.set_metric_names(["dev_acc"])
    return study


def test_importances_are_not_drawn_when_the_trials_changed_the_parameters_together(
    tmp_path: Path,
) -> None:
    """Outside check b5x item 7: trial 0 100/adadelta, trial 1 200/adam drew importances at
    0.76/0.24, though either change (or both) may have made the difference."""
    study = head_and_optimizer([(100, "adadelta", 0.2), (200, "adam", 0.3)])
    drawn, skipped = write_figures(study, plan(), tmp_path)
    assert set(drawn) == {"history", "slice"}
    assert skipped["importances"].startswith(
        "the 2 finished trials cannot tell model.head_hidden, model.optimizer apart"
    )


def test_importances_are_drawn_once_the_trials_tell_the_parameters_apart(tmp_path: Path) -> None:
    """A third trial that changes one parameter alone separates them; the legend says what the
    bars rank them for in the pages' words, not optuna's raw key ``dev_acc``."""
    study = head_and_optimizer([(100, "adadelta", 0.2), (200, "adam", 0.3), (100, "adam", 0.25)])
    drawn, skipped = write_figures(study, plan(), tmp_path)
    assert "importances" in drawn and "importances" not in skipped
    axes = _figures(study, plan())["importances"]()
    assert [t.get_text() for t in axes.get_legend().get_texts()] == ["importance for dev acc"]
    plt.close("all")


def test_trials_csv_says_an_interrupted_trial_as_summary_json_counts_it(
    study: optuna.Study, tmp_path: Path
) -> None:
    """Outside check 6y, item 5: trials.csv gave optuna's state ``FAIL`` to the trials
    summary.json counts ``interrupted`` (a signal stopped them, their parameters ran again)."""
    from harness.studies.outputs import write_trials_csv
    from harness.studies.workers import INTERRUPTED_ATTR, state_counts
    from reports.contracts.study import StudyFolder

    study.add_trial(
        optuna.trial.create_trial(
            params={"keep_prob": 0.7},
            distributions={"keep_prob": optuna.distributions.FloatDistribution(0.5, 1.0)},
            state=optuna.trial.TrialState.FAIL,
            user_attrs={INTERRUPTED_ATTR: True},
        )
    )
    folder = StudyFolder(tmp_path)
    assert write_trials_csv(study, folder) == 4
    states = folder.read_trials()["state"].tolist()
    assert states == ["COMPLETE", "COMPLETE", "COMPLETE", "INTERRUPTED"]
    assert state_counts(study) == {"complete": 3, "interrupted": 1}
