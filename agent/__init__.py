"""The agent: a question -> a brief, one node at a time (DESIGN.md 2.1).

| node      | module              | its parts                                              |
|-----------|---------------------|--------------------------------------------------------|
| rewrite   | ``agent.rewrite``   | ``agent.question`` (the offline rules)                 |
| platform  | ``agent.platform``  | the catalog search (``catalog.search``)                |
| route     | ``agent.route``     | ``agent.routes``: parameters from the question, the    |
|           |                     | offline fit, the model's choice and its rules          |
| fetch     | ``agent.fetch``     | the RSSHub client (``fetching``)                       |
| (router)  | ``agent.router``    | DESIGN.md 2.2, after each fetch                        |
| summarize | ``agent.summarize`` | ``agent.summary``: the items that answer, the outcome, |
|           |                     | the writer contract, the extractive and honest briefs  |

``agent.runner`` runs the loop; ``agent.context`` is the state one run carries from node to
node; ``agent.mode`` is the one place a node asks the model (``agent.llm``) or falls back to its
offline method.

The model only ever chooses among candidates the code offers, and the code validates every
choice: a namespace or route not offered, or parameters that fail ``fetching.paths.path_build``,
are refused (a ``choice_rejected`` step), never sent. When the model is unavailable or fails
twice, the node's offline method answers and an ``llm_fallback`` step says so.
"""
