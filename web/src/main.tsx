// The console's entry: renders the app into the page `index.html` serves.
import { render } from 'preact'
import { App } from './app'
import './styles.css'

render(<App />, document.getElementById('app') as HTMLElement)
