"""A v1.5 dataset in the official layout: its folders and files (``layout``), the
``metadata.json`` of a sample (``metadata_schema``) and the reader of any root with its
problems, absent samples and revision (``reader``)."""
