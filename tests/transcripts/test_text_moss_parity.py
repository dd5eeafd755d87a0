"""MOSS parity track: cleaning rules and corpus CER / cpCER / delta_cp by hand."""

from __future__ import annotations

import pytest

from speecheval.transcripts.text.moss_parity import (
    clean_flat,
    corpus_table,
    score_sample,
    split_speakers,
)


def test_cleaning_removes_tags_punctuation_and_space() -> None:
    raw = "[0.00][S01]你好，World！<|zh|>【笑】&噪音&[laughter] ok[3.5]"
    assert clean_flat(raw) == "你好worldok"


def test_no_nfkc_in_this_track() -> None:
    # The MOSS scorer lower-cases but does not apply NFKC: a fullwidth Ａ stays distinct
    # (lower-cased to ａ), unlike the main protocol.
    assert clean_flat("Ａ") == "ａ"


def test_speaker_tags_zero_padding_merged_and_prefix_dropped() -> None:
    assert split_speakers("前[S01]甲[S1]乙[S002]丙", single_if_untagged=False) == {
        "[S1]": "甲乙", "[S2]": "丙"}
    assert split_speakers("无标签", single_if_untagged=True) == {"[S1]": "无标签"}
    assert split_speakers("无标签", single_if_untagged=False) == {}


def test_delta_cp_negative_for_overlap_flattening() -> None:
    # Overlapped speech: reference [S1]abcd[S2]ef, hypothesis interleaves [S1]ab[S2]ef[S1]cd.
    # Flat CER: abcdef vs abefcd = 4 errors / 6. cp: S1 "abcd" vs "abcd" (0), S2 "ef" vs
    # "ef" (0) -> cpCER 0. delta_cp = 0 - 4/6 < 0.
    sample = score_sample("o", "[S1]abcd[S2]ef", "[S1]ab[S2]ef[S1]cd")
    table = corpus_table([sample])
    assert table.cer.errors == 4 and table.cpcer.errors == 0
    assert table.delta_cp == pytest.approx(-4 / 6)


def test_corpus_validity_and_shared_denominator() -> None:
    # s1: tagged, CER 1/4 (x->y), cp 1/4. s2: untagged reference: CER only, 2/2 (deleted).
    # s3: reference empty after cleaning: invalid for both.
    samples = [score_sample("s1", "[S1]ab[S2]cx", "[S1]ab[S2]cy"),
               score_sample("s2", "hi", ""),
               score_sample("s3", "[S1]。", "嗯")]
    table = corpus_table(samples)
    assert (table.samples, table.cer_valid_samples, table.cp_valid_samples) == (3, 2, 1)
    # Corpus CER sums s1 and s2: (1 + 2) / (4 + 2) = 0.5.
    assert table.cer.error_rate == pytest.approx(0.5)
    # delta_cp uses CER of the cp-valid samples only (s1): 1/4 - 1/4 = 0.
    assert table.delta_cp == pytest.approx(0.0)
    assert samples[1].cp_invalid_reason == "no_reference_speaker_tags"
    assert samples[2].cp_invalid_reason == "empty_reference_after_cleaning"
    assert table.report_dict()["track"] == "moss_parity"


def test_untagged_hypothesis_is_one_speaker() -> None:
    # Reference two speakers "ab" and "cd"; untagged hypothesis "abcd" is one speaker:
    # S1-H costs 2 (delete cd), S2 missed costs 2: cp errors 4 over 4.
    sample = score_sample("u", "[S1]ab[S2]cd", "abcd")
    assert sample.cp is not None and sample.cp.counts.errors == 4


def test_main_protocol_and_moss_track_on_the_same_raw_output() -> None:
    from speecheval.transcripts.formats.raw_tagged import RawTagged
    from speecheval.transcripts.text.cp import cp_error_rate

    ref_raw = "[0.0][S01]你好，ＡＢ[2.0][S02]再见。[3.0]"
    hyp_raw = "[0.0][S02]你好ab[2.0][S01]再贱[3.0]"
    # Main protocol: NFKC makes ＡＢ into ab: S01 "你好ab" vs hyp S02 "你好ab" (0),
    # S02 "再见" vs hyp S01 "再贱" (1 sub): cpCER 1 / 6.
    main = cp_error_rate(RawTagged.parse(ref_raw, "x").segments,
                         RawTagged.parse(hyp_raw, "x").segments, "char")
    assert (main.counts.errors, main.counts.reference_tokens) == (1, 6)
    # MOSS track: no NFKC, so fullwidth ＡＢ lower-cases to ａｂ and differs from ab:
    # 2 more substitutions, cpCER 3 / 6.
    moss = score_sample("x", ref_raw, hyp_raw)
    assert moss.cp is not None
    assert (moss.cp.counts.errors, moss.cp.counts.reference_tokens) == (3, 6)
