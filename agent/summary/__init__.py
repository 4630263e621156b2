"""The summarize node's parts (``agent.summarize``): the items that answer and the outcome
(``answer``, ``subject``, ``outcome``), the brief's pieces (``draft``), the writer contract
(``claims``), the extractive brief (``digest``, ``folding``, ``terms``) and the briefs that do
not answer from items (``honest``)."""
