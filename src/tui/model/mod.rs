//! Each screen's state, one module per screen, with the pure functions that
//! read and change it. Nothing here knows the app, the other screens or the
//! handlers: state is the bottom layer the handlers ([`super::update`](mod@super::update)) and
//! the renderers ([`super::ui`]) both stand on.

pub mod cancel;
pub mod classify;
pub mod corpus;
pub mod curves;
pub mod evaluate;
pub mod hparams;
pub mod neighbors;
pub mod projection;
pub mod runs;
pub mod session;
pub mod sweep_form;
pub mod train;
