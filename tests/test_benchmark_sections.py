"""benchmarks.replace_section rewrites a section of results/BENCHMARKS.md where it stands, so
that a rerun of one benchmark keeps the file's order (it used to move the section to the end)."""
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
