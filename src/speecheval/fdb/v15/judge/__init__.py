"""Behaviour after the overlap: the labels, the case a judge reads and the shares per
scenario (``behavior``), and the two judges that label a case: the official prompt
through an OpenAI-compatible endpoint (``openai``) and an offline one that is not the
official judge (``offline``)."""
