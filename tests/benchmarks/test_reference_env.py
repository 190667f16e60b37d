"""benchmarks/reference_env.py without pip: patches apply once and refuse a file they were not
written for, the cl100k file built from quicktok is tiktoken's, and the punkt tables are written
in the text format nltk's own loader reads back unchanged."""

from __future__ import annotations

import hashlib
from pathlib import Path
from types import ModuleType

import nltk.data
import pytest
from nltk.tokenize.punkt import load_punkt_params

from helpers import load_benchmark_script


@pytest.fixture(scope="module")
def ref() -> ModuleType:
    return load_benchmark_script("reference_env")


def test_a_patch_applies_once_keeps_indentation_and_refuses_a_missing_line(
    ref: ModuleType, tmp_path: Path
) -> None:
    (tmp_path / "pkg").mkdir()
    source = tmp_path / "pkg" / "m.py"
    source.write_text("def f():\n    return max_len\n")
    patch = ref.Patch("pkg/m.py", "return max_len", "return 100", "max_len is undefined")
    assert ref.apply_patches(tmp_path, [patch]) == ["patched pkg/m.py:2"]
    assert source.read_text() == f"def f():\n    return 100  {ref.PATCH_MARK}\n"
    assert ref.apply_patches(tmp_path, [patch]) == ["already patched pkg/m.py:2"]
    other = ref.Patch("pkg/m.py", "return other", "return 1", "not in this file")
    with pytest.raises(ref.ReferenceEnvError, match="patch refused"):
        ref.apply_patches(tmp_path, [other])


def test_every_shipped_patch_names_a_file_a_line_and_a_reason(ref: ModuleType) -> None:
    for patch in ref.PATCHES:
        assert patch.file.startswith("booookscore/") and patch.old != patch.new
        assert "\n" not in patch.old + patch.new and patch.reason


def test_the_cl100k_file_from_quicktok_is_byte_identical_to_tiktokens(
    ref: ModuleType, tmp_path: Path
) -> None:
    sha = ref.write_cl100k_cache(tmp_path)
    assert sha == ref.CL100K_SHA256  # the hash tiktoken requires of the downloaded file
    [written] = tmp_path.iterdir()
    assert written.name == hashlib.sha1(ref.CL100K_URL.encode()).hexdigest()


def test_the_punkt_tables_reload_through_nltks_own_loader(
    ref: ModuleType, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    english = tmp_path / "site" / "punkt" / "data" / "english.py"
    english.parent.mkdir(parents=True)
    english.write_text(
        "LANGUAGE = 'english'\n"
        "ABBREV_TYPES = frozenset(('dr', 'u.s', '. . '))\n"
        "SENT_STARTERS = frozenset(('however',))\n"
        "COLLOCATIONS = frozenset((('##number##', 'review'),))\n"
        "NUMERIC_ABBREV_TYPES = frozenset(())\n"
        "ORTHO_CONTEXT = {'the': 34, 'zorb': 4}\n"
    )
    ref.write_punkt_tab(tmp_path / "site", tmp_path / "nltk_data")
    # nltk reads data only under its search path (NLTK_DATA in the reference env).
    monkeypatch.setattr(nltk.data, "path", [str(tmp_path / "nltk_data")])
    params = load_punkt_params(nltk.data.find("tokenizers/punkt_tab/english/"))
    assert params.abbrev_types == {"dr", "u.s", ". . "}  # the trailing space survives
    assert params.sent_starters == {"however"}
    assert params.collocations == {("##number##", "review")}
    assert dict(params.ortho_context) == {"the": 34, "zorb": 4}
