"""The OpenAI-compatible face: Sleuth as a model any chat client can use (`/v1`)."""
