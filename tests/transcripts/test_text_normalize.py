"""Normalisation and token units, with hand-worked expectations."""

from __future__ import annotations

import pytest

from speecheval.transcripts.text.normalize import normalize
from speecheval.transcripts.text.rates import text_error_counts
from speecheval.transcripts.text.tokenize import char_tokens, mixed_tokens, tokens, word_tokens


def test_nfkc_fullwidth_and_casefold() -> None:
    # Fullwidth Latin/digits map to ASCII under NFKC, then case folding: ＧＰＴ４ -> gpt4;
    # ideographic space U+3000 is whitespace; fullwidth comma U+FF0C is punctuation.
    assert normalize("ＧＰＴ４　模型，好") == "gpt4 模型好"
    # The ligature ﬁ (U+FB01) decomposes to "fi" under NFKC.
    assert normalize("ﬁle") == "file"


def test_punctuation_deleted_not_spaced() -> None:
    # Deleting (not spacing) keeps hyphenated words and contractions one token each.
    assert word_tokens(normalize("An all-hands, don't!")) == ["an", "allhands", "dont"]
    # Symbols (category S: $ is Sc, + is Sm) are content and stay; % is Po and goes.
    assert normalize("5 $ + 3 %") == "5 $ + 3"
    # The cost of deleting: punctuation with no space around it joins the two sides.
    assert normalize("ok,123") == "ok123"


def test_whitespace_differences_removed() -> None:
    assert normalize("a\t\n b\u00a0 c  ") == "a b c"


def test_invisible_format_characters_removed() -> None:
    # A zero-width space inside the hypothesis was a 5-character string '你', U+200B, '好',
    # '世', '界' before the fix: CER 1 insertion / 4 = 0.25. Format characters (Cf) are
    # deleted, so both sides are the same 4 characters: 0 errors / 4 = 0.
    counts = text_error_counts("你好世界", "你\u200b好世界", "char")
    assert (counts.errors, counts.reference_tokens) == (0, 4)
    assert counts.error_rate == 0.0
    # ZWNJ, ZWJ, word joiner and BOM go the same way; deleted, not spaced, so the word
    # unit sees what a reader sees: 'zero' and 'width' written together.
    assert normalize("\ufeffzero\u2060width a\u200cb\u200dc") == "zerowidth abc"
    assert word_tokens(normalize("hello\u200bworld")) == ["helloworld"]


def test_char_tokens_cover_cjk_and_rest() -> None:
    assert char_tokens(normalize("你好 AB-1")) == ["你", "好", "a", "b", "1"]


def test_mixed_tokens_code_switching() -> None:
    # Latin/digit runs are single tokens; each Han character is one token.
    assert mixed_tokens(normalize("我们用PyTorch2训练GPT模型")) == [
        "我", "们", "用", "pytorch2", "训", "练", "gpt", "模", "型"]
    # Kana and Hangul are CJK: one token per character.
    assert mixed_tokens("こんにちはworld한국") == [
        "こ", "ん", "に", "ち", "は", "world", "한", "국"]


def test_unknown_unit_rejected() -> None:
    with pytest.raises(ValueError, match="unknown token unit"):
        tokens("a", "bogus")  # type: ignore[arg-type]


def test_cer_hand_example() -> None:
    # ref 今天天气很好 (6 chars); hyp 今天天汽很好啊: 气->汽 substitution, 啊 inserted.
    # S=1, D=0, I=1, N=6 -> CER 2/6.
    counts = text_error_counts("今天天气很好。", "今天天汽很好啊！", "char")
    assert (counts.substitutions, counts.deletions, counts.insertions) == (1, 0, 1)
    assert counts.reference_tokens == 6
    assert counts.error_rate == pytest.approx(2 / 6)


def test_mer_vs_cer_on_code_switching() -> None:
    # ref 用 python 写 -> MER tokens [用, python, 写]; hyp 用 pyton 写: one substitution.
    # MER = 1/3. CER tokens: 用 p y t h o n 写 (8) vs 用 p y t o n 写 (7): one deletion, 1/8.
    assert text_error_counts("用python写", "用pyton写", "mixed").error_rate == pytest.approx(1 / 3)
    assert text_error_counts("用python写", "用pyton写", "char").error_rate == pytest.approx(1 / 8)


def test_fullwidth_hypothesis_is_not_an_error() -> None:
    # Under NFKC "ＯＫ， １２３" equals "ok 123" once punctuation and case are removed.
    assert text_error_counts("OK 123", "ＯＫ， １２３", "word").errors == 0


def test_empty_reference_and_hypothesis() -> None:
    empty = text_error_counts("", "", "word")
    assert (empty.errors, empty.reference_tokens, empty.error_rate) == (0, 0, None)
    # Empty reference, 2 hypothesis words: 2 insertions, rate undefined (None, not inf or 0).
    ins = text_error_counts("。", "hello there", "word")
    assert (ins.insertions, ins.error_rate) == (2, None)
    # Empty hypothesis: every reference token deleted, rate 1.
    dels = text_error_counts("a b c", "", "word")
    assert (dels.deletions, dels.error_rate) == (3, 1.0)
