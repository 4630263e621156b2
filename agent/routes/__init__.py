"""The route node's parts (``agent.route``): what a question names (``entities``, ``enums``),
filling a route's parameters from it (``params``), the offline fit (``fit``), and the model's
method (``model``) with the rules its answer must pass (``choice``)."""
