module.exports = [{ files: ["**/*.js"], ignores: ["eslint.config.js"], rules: { "no-unused-vars": "error", "no-console": "warn", "eqeqeq": "warn" } }];
