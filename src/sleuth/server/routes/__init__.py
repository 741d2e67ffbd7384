"""The API's routes, one module per family; `common` holds what they share."""
