"""benchmarks.replace_section rewrites a section of results/BENCHMARKS.md where it stands, so
that a rerun of one benchmark keeps the file's order (it used to move the section to the end),
and keeps the notes written by hand under it (it used to drop them)."""
import benchmarks


def test_a_rewritten_section_keeps_its_place(tmp_path, monkeypatch):
    (tmp_path / "results").mkdir()
    path = tmp_path / "results" / "BENCHMARKS.md"
    path.write_text("# Benchmarks\n\n## A\n\nold a\n\n## B\n\nold b\n")
    monkeypatch.setattr(benchmarks, "ROOT", tmp_path)
    benchmarks.replace_section("## A", "## A\n\nnew a")
    assert path.read_text() == "# Benchmarks\n\n## A\n\nnew a\n\n## B\n\nold b\n"
    benchmarks.replace_section("## B", "## B\n\nnew b")
    benchmarks.replace_section("## C", "## C\n\nc")
    assert path.read_text() == "# Benchmarks\n\n## A\n\nnew a\n\n## B\n\nnew b\n\n## C\n\nc\n"


def test_a_rewritten_section_keeps_its_notes_written_by_hand(tmp_path, monkeypatch):
    (tmp_path / "results").mkdir()
    path = tmp_path / "results" / "BENCHMARKS.md"
    notes = f"{benchmarks.NOTES}\n\n- a note\n"
    path.write_text(f"# Benchmarks\n\n## A\n\nold a\n\n{notes}\n## B\n\nold b\n\n{notes}")
    monkeypatch.setattr(benchmarks, "ROOT", tmp_path)
    benchmarks.replace_section("## A", "## A\n\nnew a")
    benchmarks.replace_section("## B", "## B\n\nnew b\n")
    assert path.read_text() == \
        f"# Benchmarks\n\n## A\n\nnew a\n\n{notes}\n## B\n\nnew b\n\n{notes}"
    # twice: the notes are not doubled
    benchmarks.replace_section("## B", "## B\n\nnewer b")
    assert path.read_text().count("- a note") == 2 and "newer b" in path.read_text()


def test_a_heading_in_a_code_block_or_a_mention_in_the_text_is_not_the_section(tmp_path,
                                                                              monkeypatch):
    """A `## ` line inside a fenced block (a command's output quoted in the notes) does not end
    the section; the marker finds the heading line that starts with it, not a mention of it
    inside another section's text."""
    (tmp_path / "results").mkdir()
    path = tmp_path / "results" / "BENCHMARKS.md"
    notes = f"{benchmarks.NOTES}\n\n```\n## not a heading\n```\n- after the block\n"
    path.write_text(f"# Benchmarks\n\n## Z\n\nsee ## A kernel below\n\n"
                    f"## A kernel (issue 8)\n\nold a\n\n{notes}\n## B\n\nold b\n")
    monkeypatch.setattr(benchmarks, "ROOT", tmp_path)
    benchmarks.replace_section("## A kernel", "## A kernel (issue 8)\n\nnew a")
    assert path.read_text() == (f"# Benchmarks\n\n## Z\n\nsee ## A kernel below\n\n"
                                f"## A kernel (issue 8)\n\nnew a\n\n{notes}\n"
                                "## B\n\nold b\n")


def test_compare_commits_reads_a_bot_cost_per_decision_where_the_games_differ():
    """A bot change that makes games longer lowers games/s without costing a decision more:
    the comparison gives the paired ratio per decision beside the games/s one (the forty-fourth
    sitting measured it with a script of its own)."""
    from benchmarks.compare_commits import comparison_table
    # new: 10% fewer games/s, in games 10% longer: 1% less a decision, not 10%
    runs = {"hybrid": [((300.0, 730.0), (270.0, 803.0)), ((320.0, 730.0), (288.0, 803.0))]}
    row = comparison_table("ascension", "a", "b", 2, runs).splitlines()[2]
    cells = [c.strip() for c in row.strip("|").split("|")]
    assert cells[:6] == ["hybrid", "310", "279", "-10.0%", "730.0 / 803.0", "-1.0%"]
