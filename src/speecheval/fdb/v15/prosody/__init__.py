"""Prosody and quality of the respond replies: the measures of a reply before and after
the overlap and of the clean reply (``measures``), and their paired tests
(``paired_tests``)."""
