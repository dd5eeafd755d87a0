"""Normalisation and token units, with hand-worked expectations."""

from __future__ import annotations

import re
import sys
import unicodedata
from pathlib import Path

import pytest

from speecheval.cli import main
from speecheval.transcripts.text.normalize import normalize
from speecheval.transcripts.text.rates import text_error_counts
from speecheval.transcripts.text.tokenize import (
    _MARK_RANGES,
    char_tokens,
    mixed_tokens,
    tokens,
    word_tokens,
)


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


def test_mixed_tokens_keep_devanagari_vowel_signs_and_virama() -> None:
    # हिन्दी is ह, vowel sign ि U+093F (Mc), न, virama ् U+094D (Mn), द, vowel sign ी U+0940
    # (Mc); भाषा is भ, ा U+093E (Mc), ष, ा. The old tokens cut at every mark:
    # ['ह', 'ि', 'न', '्', 'द', 'ी', 'भ', 'ा', 'ष', 'ा'].
    assert mixed_tokens(normalize("हिन्दी भाषा")) == ["हिन्दी", "भाषा"]
    # NFKC decomposes क़ U+0958 (a composition exclusion) into क + nukta U+093C, so the
    # normaliser itself hands marks to the tokenizer: क़िला stays one token.
    assert normalize("\u0958\u093f\u0932\u093e") == "\u0915\u093c\u093f\u0932\u093e"
    assert mixed_tokens(normalize("\u0958\u093f\u0932\u093e")) == [
        "\u0915\u093c\u093f\u0932\u093e"]


def test_mixed_tokens_keep_thai_vowels_and_tone_marks() -> None:
    # สวัสดี: ส ว, mai han-akat ั U+0E31 (Mn), ส ด, sara ii ี U+0E35 (Mn); ครับ: ค ร ั บ.
    # Old tokens: ['สว', 'ั', 'สด', 'ี', 'คร', 'ั', 'บ'].
    assert mixed_tokens(normalize("สวัสดี ครับ")) == ["สวัสดี", "ครับ"]
    # น้ำ is น, mai tho U+0E49 (Mn), sara am U+0E33; NFKC turns sara am into nikhahit U+0E4D
    # (Mn) + sara aa U+0E32, and the whole stays one token.
    assert normalize("\u0e19\u0e49\u0e33") == "\u0e19\u0e49\u0e4d\u0e32"
    assert mixed_tokens(normalize("\u0e19\u0e49\u0e33")) == ["\u0e19\u0e49\u0e4d\u0e32"]


def test_mixed_tokens_keep_arabic_harakat() -> None:
    # كَتَبَ الْوَلَدُ: letters with fatha U+064E, sukun U+0652, damma U+064F (all Mn).
    katab = "\u0643\u064e\u062a\u064e\u0628\u064e"
    alwalad = "\u0627\u0644\u0652\u0648\u064e\u0644\u064e\u062f\u064f"
    assert mixed_tokens(normalize(f"{katab} {alwalad}")) == [katab, alwalad]
    # Shadda U+0651 (combining class 33) typed before fatha (30) is put after it by NFKC's
    # canonical ordering, so both typing orders give the same token.
    assert mixed_tokens(normalize("\u0645\u0651\u064e\u062f")) == ["\u0645\u064e\u0651\u062f"]


def test_mixed_tokens_keep_latin_combining_accents() -> None:
    # NFKC composes e + U+0301 into é, so the usual case never reaches the tokenizer...
    assert normalize("e\u0301te\u0301") == "\u00e9t\u00e9"
    # ...but a letter with no precomposed form keeps the mark (x + macron U+0304), and case
    # folding İ gives i + dot above U+0307: each stays one word (old: ['i', '̇', 'stanbul']).
    assert mixed_tokens(normalize("x\u0304y")) == ["x\u0304y"]
    assert mixed_tokens(normalize("İstanbul")) == ["i\u0307stanbul"]
    # Unnormalised decomposed text gives one token as well.
    assert mixed_tokens("e\u0301te\u0301") == ["e\u0301te\u0301"]


def test_mixed_tokens_attach_marks_to_a_cjk_character() -> None:
    # か + combining dakuten U+3099 composes to が under NFKC (one CJK token anyway)...
    assert mixed_tokens(normalize("か\u3099き")) == ["が", "き"]
    # ...but か + handakuten U+309A (the nasal ka゚ of linguistics) and Ainu ㇷ゚ have no
    # precomposed form: the mark belongs to the kana, one token (old: two CJK tokens).
    assert mixed_tokens(normalize("か\u309aき\u31f7\u309aabc")) == [
        "か\u309a", "き", "\u31f7\u309a", "abc"]


def test_mixed_tokens_stray_mark_is_its_own_token() -> None:
    # A mark with no letter, digit or CJK character right before it (start, after a space,
    # after a symbol, after another stray mark) is a token of its own; x + U+0301 is one.
    assert mixed_tokens(normalize("\u0301x\u0301 \u0301\u0301 $\u0301")) == [
        "\u0301", "x\u0301", "\u0301", "\u0301", "$", "\u0301"]
    # NFKC writes the spacing dakuten U+309B as a space + combining U+3099, so か゛ is the
    # kana and a stray mark: two tokens (が would be one).
    assert normalize("か\u309b") == "か \u3099"
    assert mixed_tokens(normalize("か\u309b")) == ["か", "\u3099"]


def _ranges(code_points: set[int]) -> str:
    """``code_points`` as regex class ranges, the way ``_MARK_RANGES`` is written."""
    runs: list[list[int]] = []
    for cp in sorted(code_points):
        if runs and runs[-1][1] == cp - 1:
            runs[-1][1] = cp
        else:
            runs.append([cp, cp])
    return "".join(f"\\U{a:08x}" + (f"-\\U{b:08x}" if b > a else "") for a, b in runs)


def test_mark_ranges_match_unicodedata() -> None:
    # The written-out list of marks (Mn, Mc, Me) must hold every mark this Python knows, and
    # nothing else except code points a newer Unicode made marks (unassigned here: Cn).
    everything = "".join(map(chr, range(sys.maxunicode + 1)))
    listed = {ord(c) for c in re.findall(f"[{_MARK_RANGES}]", everything)}
    marks = {ord(c) for c in everything if unicodedata.category(c).startswith("M")}
    missing = marks - listed
    assert not missing, f"add to _MARK_RANGES: {_ranges(missing)}"
    not_marks = {cp for cp in listed - marks if unicodedata.category(chr(cp)) != "Cn"}
    assert not not_marks, f"remove from _MARK_RANGES: {_ranges(not_marks)}"
    # Unicode 15.1 has 2450 mark code points; older Pythons know fewer of them.
    assert len(listed) == 2450


def test_mer_hindi_pair_by_hand(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # ref मैं हिन्दी बोलता हूँ। (the danda U+0964 is punctuation, removed) -> 4 tokens; hyp
    # writes हिंदी (anusvara U+0902 instead of न + virama): S=1, D=0, I=0, N=4 -> MER 1/4.
    # The old tokens were 16 pieces on the reference side, 1 substitution + 1 deletion: 2/16.
    ref, hyp = "मैं हिन्दी बोलता हूँ।", "मैं हिंदी बोलता हूँ"
    assert mixed_tokens(normalize(ref)) == ["मैं", "हिन्दी", "बोलता", "हूँ"]
    counts = text_error_counts(ref, hyp, "mixed")
    assert (counts.substitutions, counts.deletions, counts.insertions) == (1, 0, 0)
    assert (counts.reference_tokens, counts.error_rate) == (4, 0.25)
    # The same through the command line: 1 / 4 = 25.00 %.
    (tmp_path / "ref.txt").write_text(ref, encoding="utf-8")
    (tmp_path / "hyp.txt").write_text(hyp, encoding="utf-8")
    assert main(["transcripts", "wer", "--ref", str(tmp_path / "ref.txt"), "--hyp",
                 str(tmp_path / "hyp.txt"), "--unit", "mixed", "--whole-file"]) == 0
    assert capsys.readouterr().out.strip() == "%MER 25.00 [ 1 / 4, 0 ins, 0 del, 1 sub ]"


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


def test_ascii_words_are_the_unicode_words_of_ascii_text() -> None:
    """The ASCII path (lower(), bytes.translate) against the general one (NFKC,
    casefold, the punctuation table) on every ASCII character, in random strings."""
    import random

    from speecheval.transcripts.text.normalize import ascii_words, unicode_words

    rng = random.Random(29)
    every = "".join(map(chr, range(128)))
    assert ascii_words(every) == unicode_words(every)
    for _ in range(3000):
        text = "".join(chr(rng.randrange(128)) for _ in range(rng.randrange(40)))
        assert ascii_words(text) == unicode_words(text), repr(text)
