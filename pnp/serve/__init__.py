"""The live preview (`pnp serve`): a local web page with every face of a game, its data and its validation
messages, updated on save. The web stack (Starlette, uvicorn, watchfiles) is loaded only by `pnp serve`."""
